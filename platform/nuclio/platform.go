// Package nuclio runs functions as NuclioFunction resources
// (nuclio.io/v1beta1) through the dynamic client: the HTTP trigger's
// maxWorkers (workers per pod, seed 003), fixed replicas or min/max with a
// CPU target, invoked at the function's NodePort from status.httpPort.
package nuclio

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Name is the registry name.
const Name = "nuclio"

// Platform deploys NuclioFunctions.
type Platform struct {
	*kube.Session
	cfg Config
}

var (
	_ platform.Platform        = (*Platform)(nil)
	_ platform.ReplicaWatcher  = (*Platform)(nil)
	_ platform.ResourceSampler = (*Platform)(nil)
	_ platform.Fingerprinter   = (*Platform)(nil)
	_ platform.ColdStarter     = (*Platform)(nil)
)

// Kinds are the Nuclio resources a run creates.
func Kinds() []schema.GroupVersionResource { return []schema.GroupVersionResource{FunctionGVR} }

// New connects and watches the run's functions' Deployments and pods
// (Nuclio's controller copies a function's labels to them).
func New(ctx context.Context, pc platform.Config) (*Platform, error) {
	cfg, err := ParseConfig(pc.RunID, pc.Options)
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

func (p *Platform) functions() dynamic.ResourceInterface {
	return p.Cluster.Dynamic.Resource(FunctionGVR).Namespace(p.Namespace())
}

// Deploy implements platform.Platform.
func (p *Platform) Deploy(ctx context.Context, fn platform.Function) error {
	s, err := ParseSettings(fn)
	if err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
	}
	u, err := p.cfg.Function(p.Namespace(), fn, s)
	if err != nil {
		return err
	}
	if err := kube.Apply(ctx, p.functions(), u, "nuclio function"); err != nil {
		return err
	}
	if _, err := p.waitReady(ctx, fn.Name); err != nil {
		return err
	}
	if !s.Autoscaled {
		return p.WaitReplicas(ctx, fn.Name, fn.Replicas)
	}
	return nil
}

type status struct {
	State    string `json:"state"`
	Message  string `json:"message"`
	HTTPPort int    `json:"httpPort"`
}

// waitReady waits for status.state ready; "error" fails with its message.
func (p *Platform) waitReady(ctx context.Context, name string) (status, error) {
	var st status
	err := kube.Poll(ctx, p.ReadyTimeout, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		u, err := p.functions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		st = status{}
		if err := kube.StatusOf(u, &st); err != nil {
			return false, fmt.Errorf("nuclio function %s: status: %w", name, err)
		}
		switch st.State {
		case "ready":
			return true, nil
		case "error", "unhealthy":
			return false, fmt.Errorf("nuclio function %s: %s: %s", name, st.State, st.Message)
		}
		return false, nil
	})
	if errors.Is(err, kube.ErrTimeout) {
		return st, fmt.Errorf("nuclio function %s: state %q after %s (platform.options.ready_timeout): %w", name, st.State, p.ReadyTimeout, kube.ErrTimeout)
	}
	return st, err
}

// Scale implements platform.Platform: spec.replicas (fixed replicas), with
// the state that makes Nuclio's controller apply it.
func (p *Platform) Scale(ctx context.Context, name string, replicas int) error {
	if replicas < 0 {
		return fmt.Errorf("scale %s: replicas %d is negative", name, replicas)
	}
	if err := p.reconfigure(ctx, name, `"replicas":`+strconv.Itoa(replicas)+`,"minReplicas":null,"maxReplicas":null`); err != nil {
		return fmt.Errorf("scale %s: %w", name, err)
	}
	return p.WaitReplicas(ctx, name, replicas)
}

// reconfigure merges spec into the function's spec and sets the state in
// which Nuclio's controller applies it (what nuctl's redeploy does).
func (p *Platform) reconfigure(ctx context.Context, name, spec string) error {
	patch := []byte(`{"spec":{` + spec + `},"status":{"state":"` + StateWaitingForResources + `"}}`)
	_, err := p.functions().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// MakeCold implements platform.ColdStarter: disable the function
// (spec.disable, Nuclio's pause: the controller computes 0 replicas), wait
// until no pod is left, enable it again and wait for its replicas (fixed:
// spec.replicas; autoscaled: minReplicas, at least 1, as the controller
// starts them). The next call reaches new pods, and is their processor's
// first; StartedSince (from the Session) names them. Nuclio's own scale to
// zero goes through its autoscaler and DLX, which a cluster may not run.
func (p *Platform) MakeCold(ctx context.Context, name string) (string, error) {
	u, err := p.functions().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("make %s cold: %w", name, err)
	}
	n, fixed, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
	if !fixed {
		n, _, _ = unstructured.NestedInt64(u.Object, "spec", "minReplicas")
	}
	n = max(n, 1)
	if err := p.reconfigure(ctx, name, `"disable":true`); err != nil {
		return "", fmt.Errorf("make %s cold: disable: %w", name, err)
	}
	if _, err := p.waitReady(ctx, name); err != nil {
		return "", fmt.Errorf("make %s cold: %w", name, err)
	}
	if err := p.WaitReplicas(ctx, name, 0); err != nil {
		return "", fmt.Errorf("make %s cold: %w", name, err)
	}
	if err := p.reconfigure(ctx, name, `"disable":null`); err != nil {
		return "", fmt.Errorf("make %s cold: enable: %w", name, err)
	}
	if _, err := p.waitReady(ctx, name); err != nil {
		return "", fmt.Errorf("make %s cold: %w", name, err)
	}
	if err := p.WaitReplicas(ctx, name, int(n)); err != nil {
		return "", fmt.Errorf("make %s cold: %w", name, err)
	}
	return fmt.Sprintf("disabled (spec.disable: no pod left) and enabled again with %d replica(s): new pods, the next call is a processor's first", n), nil
}

// Endpoint implements platform.Platform: the HTTP trigger's NodePort
// (status.httpPort) on a node.
func (p *Platform) Endpoint(ctx context.Context, name string) (string, error) {
	st, err := p.waitReady(ctx, name)
	if err != nil {
		return "", err
	}
	url, err := p.Cluster.NodePortURL(ctx, p.cfg.EndpointHost, int32(st.HTTPPort))
	if err != nil {
		return "", fmt.Errorf("nuclio function %s (status.httpPort): %w", name, err)
	}
	return url, nil
}

// Fingerprint implements platform.Fingerprinter: the cluster, Nuclio's
// component images and its platform configuration.
func (p *Platform) Fingerprint(ctx context.Context) (map[string]any, error) {
	f := p.Session.Fingerprint(ctx, Name, p.cfg.NuclioNamespace)
	if cfg, err := p.Cluster.ConfigMapData(ctx, p.cfg.NuclioNamespace, "nuclio-platform-config"); err == nil {
		f["platform_config"] = cfg
	}
	return f, nil
}

// Requirements are what a run needs of the cluster.
func Requirements() kube.Requirements { return kube.CRDRequirements(Kinds()) }
