// Package fission runs functions on Fission through its CRDs
// (fission.io/v1: Environment, Package, Function, HTTPTrigger) with the
// poolmgr, newdeploy or container executor, invoked through Fission's
// router at /<name>.
package fission

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Name is the registry name.
const Name = "fission"

// Platform deploys Fission functions.
type Platform struct {
	*kube.Session
	cfg Config

	functions kube.Functions[Settings]
}

var (
	_ platform.Platform        = (*Platform)(nil)
	_ platform.ReplicaWatcher  = (*Platform)(nil)
	_ platform.ResourceSampler = (*Platform)(nil)
	_ platform.Fingerprinter   = (*Platform)(nil)
	_ platform.ColdStarter     = (*Platform)(nil)
)

// Kinds are the Fission resources a run creates, triggers first.
func Kinds() []schema.GroupVersionResource {
	return []schema.GroupVersionResource{TriggerGVR, FunctionGVR, PackageGVR, EnvironmentGVR}
}

var gvrOf = map[string]schema.GroupVersionResource{"Environment": EnvironmentGVR, "Package": PackageGVR, "Function": FunctionGVR, "HTTPTrigger": TriggerGVR}

// New connects and watches the run's Deployments and pods (Fission merges
// the function's and the environment's labels into them).
func New(ctx context.Context, pc platform.Config) (*Platform, error) {
	cfg, err := ParseConfig(pc)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg)
}

// Open is New with a parsed configuration.
func Open(ctx context.Context, cfg Config) (*Platform, error) {
	s, err := kube.OpenSession(ctx, cfg.Common, nil, Kinds())
	if err != nil {
		return nil, err
	}
	return &Platform{Session: s, cfg: cfg}, nil
}

// Name implements platform.Platform.
func (p *Platform) Name() string { return Name }

// Deploy implements platform.Platform: create or update the objects with
// strict field validation, then wait for MinScale replicas (newdeploy,
// container) or nothing (poolmgr specialises on the first request).
func (p *Platform) Deploy(ctx context.Context, fn platform.Function) error {
	s, err := ParseSettings(fn, p.cfg.WorkloadsDir)
	if err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
	}
	// Secret values go in a Secret the pod references (kube/secret.go).
	if err := p.PutEnvSecret(ctx, fn); err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
	}
	objs, err := p.cfg.Objects(p.Namespace(), fn, s)
	if err != nil {
		return err
	}
	for _, u := range objs {
		r := p.Cluster.Dynamic.Resource(gvrOf[u.GetKind()]).Namespace(p.Namespace())
		if err := kube.Apply(ctx, r, u, "fission "+strings.ToLower(u.GetKind())); err != nil {
			return err
		}
	}
	p.functions.Put(fn.Name, s)
	if s.Executor == PoolMgr || s.MinScale == 0 {
		return nil
	}
	return p.WaitReplicas(ctx, fn.Name, s.MinScale)
}

// Scale implements platform.Platform: MinScale = MaxScale = replicas
// (newdeploy and container executors).
func (p *Platform) Scale(ctx context.Context, name string, replicas int) error {
	s, ok := p.functions.Get(name)
	switch {
	case !ok:
		return fmt.Errorf("scale %s: not deployed by this run", name)
	case s.Executor == PoolMgr:
		return fmt.Errorf("scale %s: the poolmgr executor has no replica count", name)
	case replicas < 0:
		return fmt.Errorf("scale %s: replicas %d is negative", name, replicas)
	}
	patch := fmt.Sprintf(`{"spec":{"InvokeStrategy":{"ExecutionStrategy":{"MinScale":%d,"MaxScale":%d}}}}`, replicas, max(replicas, 1))
	if _, err := p.Cluster.Dynamic.Resource(FunctionGVR).Namespace(p.Namespace()).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("scale %s: %w", name, err)
	}
	return p.WaitReplicas(ctx, name, replicas)
}

// MakeCold implements platform.ColdStarter (newdeploy and container
// executors): scale the function's Deployment (labels executorType and
// functionName, as Fission's executor makes it) to zero and wait until no
// pod is left. That is the state Fission's idle reaper leaves a function in
// after its idle timeout (pkg/executor/reaper/idle: ScaleDownStrategy); the
// next request then finds no available replica (the executor's IsValid),
// and the executor scales the Deployment up and waits for it
// (createOrGetDeployment) while the router holds the request: Fission's
// cold start. The HorizontalPodAutoscaler leaves a Deployment at zero alone.
// StartedSince (from the Session) names the new pod.
func (p *Platform) MakeCold(ctx context.Context, name string) (platform.Cold, error) {
	s, ok := p.functions.Get(name)
	switch {
	case !ok:
		return platform.Cold{}, fmt.Errorf("make %s cold: not deployed by this run", name)
	case s.Executor == PoolMgr:
		return platform.Cold{}, fmt.Errorf("make %s cold: a poolmgr cold start is the specialisation of a pool pod, which only Fission's executor does; use settings.executor newdeploy (or container), whose Deployment faasbench scales to zero", name)
	}
	list, err := p.Cluster.Client.AppsV1().Deployments(p.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: "executorType=" + s.Executor + ",functionName=" + name})
	if err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	if len(list.Items) == 0 {
		return platform.Cold{}, fmt.Errorf("make %s cold: no %s Deployment with label functionName=%s in namespace %s (has Fission's executor made it?)", name, s.Executor, name, p.Namespace())
	}
	for _, d := range list.Items {
		if err := p.Cluster.ScaleDeployment(ctx, p.Namespace(), d.Name, 0); err != nil {
			return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
		}
	}
	if err := p.WaitReplicas(ctx, name, 0); err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	return platform.Cold{How: "the function's Deployment scaled to 0 (as Fission's idle reaper does); the next request makes the executor start a pod", OnPath: true}, nil
}

// Endpoint implements platform.Platform: the router and the trigger's URL.
func (p *Platform) Endpoint(_ context.Context, name string) (string, error) {
	return p.cfg.RouterURL + "/" + name, nil
}

// Fingerprint implements platform.Fingerprinter: the cluster, Fission's
// component images and the executor's settings (its Deployment's env).
func (p *Platform) Fingerprint(ctx context.Context) (map[string]any, error) {
	f := p.Session.Fingerprint(ctx, Name, p.cfg.FissionNamespace)
	f["validated"] = Validated
	if env, err := p.Cluster.DeploymentEnv(ctx, p.cfg.FissionNamespace, "executor"); err == nil {
		f["executor_settings"] = env
	}
	return f, nil
}

// Remove implements platform.Platform.
func (p *Platform) Remove(ctx context.Context, name string) error {
	p.functions.Delete(name)
	return p.Session.Remove(ctx, name)
}

// Requirements are what a run needs of the cluster.
func Requirements() kube.Requirements { return kube.CRDRequirements(Kinds()) }
