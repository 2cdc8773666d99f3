package fission

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Deploy implements platform.Platform: create or update the objects with
// strict field validation, wait for the router to serve the function's
// route (waitRoute), then for MinScale replicas (newdeploy, container) or
// a warm pod of the pool (poolmgr specialises on the first request).
func (p *Platform) Deploy(ctx context.Context, fn platform.Function) error {
	s, err := ParseSettings(fn, p.cfg.WorkloadsDir)
	if err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
	}
	if s.TargetCPU > 0 {
		// Fission's newdeploy and container executors scale on CPU through an HPA (#59).
		if err := p.Cluster.RefuseWithoutMetricsAPI("settings.target_cpu (Fission's HPA)", "run with fixed replicas (min_scale = max_scale)"); err != nil {
			return fmt.Errorf("function %s: %w", fn.Name, err)
		}
	}
	p.deployedAt.Store(fn.Name, time.Now())
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
		// A source package is built before the Function exists (found on the real node): a newdeploy
		// pod started before the build fails its one specialisation ("cannot fetch deployment: package
		// build status was not \"succeeded\"", its fetcher never ready) until buildermgr's update of
		// the Function's package reference makes the executor roll the Deployment: a deploy would see
		// a failed pod, then a second one.
		if u.GetKind() == "Package" && s.BuilderImage != "" {
			if err := p.waitBuild(ctx, fn.Name, s); err != nil {
				return err
			}
		}
	}
	p.functions.Put(fn.Name, s)
	if err := p.waitRoute(ctx, fn.Name); err != nil {
		return err
	}
	if s.Executor == PoolMgr && fn.Concurrency == 0 {
		p.Warn(fmt.Sprintf("function %s: Fission's poolmgr serves one request at a time per pod when requestsPerPod is unset (DefaultRequestsPerPod 1, pkg/apis/core/v1/types.go), where faasbench's concurrency 0 means no limit elsewhere", fn.Name))
	}
	if s.Executor == PoolMgr {
		return p.waitPool(ctx, fn, s)
	}
	if s.MinScale == 0 {
		return nil
	}
	if err := p.WaitReplicas(ctx, fn.Name, s.MinScale); err != nil {
		return err
	}
	if err := p.waitService(ctx, fn.Name, s.Executor, s.MinScale); err != nil {
		return err
	}
	return p.waitFunction(ctx, fn.Name, s, s.MinScale)
}

// waitBuild waits until Fission's buildermgr has built a source package (status.buildstatus
// succeeded: the builder ran, the deployment package is in the storage service) within
// settings.build_timeout; a failed build ends the deploy with the builder's own log (the
// package's status.buildlog, its last lines).
func (p *Platform) waitBuild(ctx context.Context, name string, s Settings) error {
	pkgs := p.Cluster.Dynamic.Resource(PackageGVR).Namespace(p.Namespace())
	var status, buildLog string
	err := kube.Poll(ctx, time.Duration(s.BuildTimeout)*time.Second, 500*time.Millisecond, func(ctx context.Context) (bool, error) {
		u, err := pkgs.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil // looked at again, or the timeout says it
		}
		status, _, _ = unstructured.NestedString(u.Object, "status", "buildstatus")
		buildLog, _, _ = unstructured.NestedString(u.Object, "status", "buildlog")
		return status == "succeeded" || status == "failed", nil
	})
	switch {
	case errors.Is(err, kube.ErrTimeout):
		return fmt.Errorf("function %s: Fission did not build its package within %d s (settings.build_timeout; build status %q, builder image %s): %w%s",
			name, s.BuildTimeout, status, s.BuilderImage, err, logTail(buildLog))
	case err != nil:
		return fmt.Errorf("function %s: %w", name, err)
	case status == "failed":
		return fmt.Errorf("function %s: Fission's build of its package failed (builder image %s)%s", name, s.BuilderImage, logTail(buildLog))
	}
	return nil
}

// logTail is the last lines of a build log, to quote in an error.
func logTail(l string) string {
	l = strings.TrimSpace(l)
	if l == "" {
		return ""
	}
	lines := strings.Split(l, "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return ":\n  " + strings.Join(lines, "\n  ")
}

// poolSelector selects the generic (not yet specialised) pods of a poolmgr
// function's environment pool (faasbench gives each function its own
// Environment, named as the function).
func poolSelector(name string) string {
	return "executorType=poolmgr,managed=true,environmentName=" + name
}

// readyPoolPods counts the ready generic pods of a poolmgr function's pool
// that are not being deleted.
func (p *Platform) readyPoolPods(ctx context.Context, name string) (int, error) {
	l, err := p.Cluster.Client.CoreV1().Pods(p.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: poolSelector(name)})
	if err != nil {
		return 0, err
	}
	n := 0
	for i := range l.Items {
		if l.Items[i].DeletionTimestamp == nil && kube.PodReady(&l.Items[i]) {
			n++
		}
	}
	return n, nil
}

// waitPool waits until the pool of a poolmgr function's environment holds a
// ready pod, the one its first request will be specialised in: without one
// the request waits for a pod start (or for ever, when the environment's
// image cannot run), which the run would count as the function's latency.
// On timeout the pool's pods say why (kube.Diagnose: e.g. the kubelet's
// ErrImageNeverPull for an environment image the node does not have).
func (p *Platform) waitPool(ctx context.Context, fn platform.Function, s Settings) error {
	if s.PoolSize == 0 {
		return nil
	}
	name := fn.Name
	err := kube.Poll(ctx, p.ReadyTimeout, 200*time.Millisecond, func(ctx context.Context) (bool, error) {
		n, err := p.readyPoolPods(ctx, name)
		return err == nil && n > 0, nil // an API error: looked at again, or the timeout says it
	})
	if errors.Is(err, kube.ErrTimeout) {
		return fmt.Errorf("function %s: no pod of its environment's pool (settings.pool_size %d, image %s) ready after %s (platform.options.ready_timeout): %w%s",
			name, s.PoolSize, p.cfg.Image(fn.Workload, fn.Language+"-fission", s.EnvImage), p.ReadyTimeout, err, p.Cluster.Diagnose(ctx, poolSelector(name)))
	}
	if err != nil {
		return fmt.Errorf("function %s: %w", name, err)
	}
	return nil
}

// waitFunction waits, for the container executor, until each of the n pods
// has answered as the function, straight at the pod, and then the router
// has: its pods have no readiness probe (pkg/executor/executortype/container/
// deployment.go), so a Ready pod only says its container started. Each pod
// is asked itself because the router reaches a function through its Service
// on kept-alive connections: calls through it land on one pod (found on the
// real node), and n instances would never all answer there.
func (p *Platform) waitFunction(ctx context.Context, name string, s Settings, n int) error {
	if s.Executor != Container || n == 0 {
		return nil
	}
	pods, err := p.PodEndpoints(ctx, name, kube.Port)
	if err != nil {
		return err
	}
	if len(pods) < n {
		return fmt.Errorf("function %s: %d of %d pods have an address: %w", name, len(pods), n, kube.ErrTimeout)
	}
	for _, u := range pods {
		if err := p.podAnswering(ctx, name, u, p.ReadyTimeout); err != nil {
			return fmt.Errorf("function %s at its pod (its container executor's pods have no readiness probe): %w", name, err)
		}
	}
	url, err := p.Endpoint(ctx, name)
	if err != nil {
		return err
	}
	if err := kube.WaitAnswering(ctx, url, 1, p.ReadyTimeout, nil); err != nil {
		return fmt.Errorf("function %s through the router: %w", name, err)
	}
	return nil
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
	case replicas == 0:
		// The executor copies MinScale into the HPA's minReplicas (newdeploymgr.go,
		// containermgr.go updateFunction), which the API server refuses at 0.
		return fmt.Errorf("scale %s to 0: %w: Fission's executor copies MinScale into its HorizontalPodAutoscaler's minReplicas, which Kubernetes refuses at 0; a function reaches zero replicas only by its idle reaper, with min_scale 0", name, platform.ErrRefused)
	}
	patch := fmt.Sprintf(`{"spec":{"InvokeStrategy":{"ExecutionStrategy":{"MinScale":%d,"MaxScale":%d}}}}`, replicas, max(replicas, 1))
	if _, err := p.Cluster.Dynamic.Resource(FunctionGVR).Namespace(p.Namespace()).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("scale %s: %w", name, err)
	}
	if err := p.WaitReplicas(ctx, name, replicas); err != nil {
		return err
	}
	if err := p.waitService(ctx, name, s.Executor, replicas); err != nil {
		return err
	}
	return p.waitFunction(ctx, name, s, replicas)
}
