// Package kubeless runs functions as Kubeless Function resources
// (kubeless.io/v1beta1; Kubeless is archived upstream, supported here as a
// legacy platform for seed 003's comparison) through the dynamic client:
// the function's code on Kubeless's own runtime (settings.runtime and
// code_file) or the workload's image as a custom runtime image, fixed
// replicas, invoked at the function Service's NodePort.
package kubeless

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Name is the registry name.
const Name = "kubeless"

// Platform deploys Kubeless Functions.
type Platform struct {
	*kube.Session
	cfg Config
	// runtime remembers, per function, whether Kubeless's runtime runs it
	// (runtime mode).
	runtime kube.Functions[bool]
}

var (
	_ platform.Platform        = (*Platform)(nil)
	_ platform.CPUCapacity     = (*Platform)(nil)
	_ platform.ReplicaWatcher  = (*Platform)(nil)
	_ platform.ResourceSampler = (*Platform)(nil)
	_ platform.Fingerprinter   = (*Platform)(nil)
	_ platform.ColdStarter     = (*Platform)(nil)
	_ platform.DirectCaller    = (*Platform)(nil)
	_ platform.HostRouter      = (*Platform)(nil)
)

// Kinds are the Kubeless resources a run creates.
func Kinds() []schema.GroupVersionResource { return []schema.GroupVersionResource{FunctionGVR} }

// New connects and watches the run's functions' Deployments and pods
// (Kubeless's controller copies a function's labels to them).
func New(ctx context.Context, pc platform.Config) (*Platform, error) {
	cfg, err := parseConfig(pc.RunID, pc.WorkloadsDir, pc.Options)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg)
}

// Open is New with a parsed configuration.
func Open(ctx context.Context, cfg Config) (*Platform, error) {
	if !cfg.PatchedController {
		cl, err := kube.Connect(cfg.Kube)
		if err != nil {
			return nil, err
		}
		if err := cl.CheckBelow(Requirements()); err != nil {
			return nil, fmt.Errorf("%w: %w; with a Kubeless controller patched to read its CRD through apiextensions.k8s.io/v1 (deploy/kubeless/up.sh installs one) set platform.options.patched_controller: true", platform.ErrRefused, err)
		}
	}
	kinds := Kinds()
	if cfg.IngressURL != "" {
		kinds = append(kinds, IngressGVR)
	}
	s, err := kube.OpenSession(ctx, cfg.Common, nil, kinds)
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

// Deploy implements platform.Platform. A Kubeless Function has no status:
// it is ready when its Deployment's pods are.
func (p *Platform) Deploy(ctx context.Context, fn platform.Function) error {
	s, err := ParseSettings(fn)
	if err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
	}
	// Secret values go in a Secret the pod references (kube/secret.go).
	if err := p.PutEnvSecret(ctx, fn); err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
	}
	u, err := p.cfg.Function(p.Namespace(), fn, s)
	if err != nil {
		return err
	}
	if err := kube.Apply(ctx, p.functions(), u, "kubeless function"); err != nil {
		return err
	}
	p.runtime.Put(fn.Name, s.RuntimeMode())
	if p.cfg.IngressURL != "" {
		svc, err := p.waitService(ctx, fn.Name)
		if err != nil {
			return err
		}
		if err := p.putIngress(ctx, fn.Name, svc); err != nil {
			return err
		}
	}
	return p.waitServing(ctx, fn.Name, s.Replicas(fn))
}

// waitService waits until Kubeless's controller has made the function's Service and returns it (an
// HTTP trigger is refused before: the trigger controller reads it).
func (p *Platform) waitService(ctx context.Context, name string) (*corev1.Service, error) {
	var svc *corev1.Service
	var last error
	err := kube.Poll(ctx, p.ReadyTimeout, 200*time.Millisecond, func(ctx context.Context) (bool, error) {
		svc, last = p.Cluster.Client.CoreV1().Services(p.Namespace()).Get(ctx, name, metav1.GetOptions{})
		return last == nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("kubeless function %s: no Service from Kubeless's controller within %s (platform.options.ready_timeout; last: %v): %w", name, p.ReadyTimeout, last, err)
	}
	return svc, nil
}

// waitServing waits for n ready pods of name and for the function's Service to list them (its
// EndpointSlices: kube-proxy routes only to what they list; make test once saw 40 calls after a
// scale to 2 reach the first pod alone). On a cluster whose nodes are all simulated (KWOK) it stops
// there: no node address leads anywhere, so nothing is sent. Then, for a function Kubeless's
// runtime runs, the runtime's /healthz on each pod (the controller gives its container no readiness
// probe: a pod is Ready before kubeless.py listens, and a call then is refused, as a Kubeless user's
// is) and then every pod reached through the function's NodePort (kube.WaitRouted, each pod told by
// its runtime's metrics page: kube-proxy programs the pods a moment after the Service lists them,
// and on the real node the first 9 to 69 calls after a scale from 1 to 2 all reached the first pod:
// docs/evidence/kubeless-scale-routing-2026-12-01.txt); for a contract image, the health path through the NodePort until n different pods have
// answered (kube.WaitHealthy).
func (p *Platform) waitServing(ctx context.Context, name string, n int) error {
	if err := p.WaitServed(ctx, name, name, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if sim, err := p.Cluster.Simulated(ctx); err != nil || sim {
		return err
	}
	url, err := p.Endpoint(ctx, name)
	if err != nil {
		return err
	}
	at, prepare := "at its NodePort", func(*http.Request) {}
	if p.cfg.IngressURL != "" {
		at, prepare = "through the ingress (host "+IngressHost(p.Namespace(), name)+")", p.hostOf(name)
	}
	if rt, _ := p.runtime.Get(name); !rt {
		if err := kube.WaitHealthy(ctx, url, n, p.ReadyTimeout, prepare); err != nil {
			return fmt.Errorf("function %s %s: %w", name, at, err)
		}
		return nil
	}
	pods, err := p.PodEndpoints(ctx, name, kube.Port)
	if err != nil {
		return err
	}
	for _, u := range pods {
		if err := kube.WaitAnswered(ctx, u+"healthz", p.ReadyTimeout, nil); err != nil {
			return fmt.Errorf("function %s: Kubeless's runtime: %w", name, err)
		}
	}
	if err := kube.WaitRouted(ctx, url, pods, metricsPath, runtimeIdentity, p.ReadyTimeout, prepare); err != nil {
		return fmt.Errorf("function %s %s: %w", name, at, err)
	}
	return nil
}

// Scale implements platform.Platform: the Deployment template's replicas,
// which the controller copies to the function's Deployment.
func (p *Platform) Scale(ctx context.Context, name string, replicas int) error {
	if replicas < 0 {
		return fmt.Errorf("scale %s: replicas %d is negative", name, replicas)
	}
	patch := []byte(`{"spec":{"deployment":{"spec":{"replicas":` + strconv.Itoa(replicas) + `}}}}`)
	if _, err := p.functions().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("scale %s: %w", name, err)
	}
	return p.waitServing(ctx, name, replicas)
}

// MakeCold implements platform.ColdStarter: scale to 0, wait until no pod
// is left, and back to the Function's replicas (Kubeless has no scale to
// zero on demand: the next call reaches new pods that are already
// running, and is their process's first). StartedSince (from the Session)
// names the new pods.
func (p *Platform) MakeCold(ctx context.Context, name string) (platform.Cold, error) {
	u, err := p.functions().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	n, _, _ := unstructured.NestedInt64(u.Object, "spec", "deployment", "spec", "replicas")
	n = max(n, 1)
	if err := p.Scale(ctx, name, 0); err != nil { // waits until no pod is left
		return platform.Cold{}, err
	}
	if err := p.Scale(ctx, name, int(n)); err != nil {
		return platform.Cold{}, err
	}
	return platform.Cold{How: fmt.Sprintf("scaled to 0 (no pod left) and back to %d: new pods, the next call is a process's first", n), OnPath: false}, nil
}

// Endpoint implements platform.Platform: the function Service's NodePort
// (the Service has the function's name) on a node; with
// platform.options.ingress_url, the ingress controller in front of the
// functions, the request's host then being the function's (FunctionHost).
func (p *Platform) Endpoint(ctx context.Context, name string) (string, error) {
	if p.cfg.IngressURL != "" {
		return p.cfg.IngressURL + "/", nil
	}
	svc, err := p.Cluster.Client.CoreV1().Services(p.Namespace()).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("kubeless function %s: its Service: %w", name, err)
	}
	var port int32
	for _, sp := range svc.Spec.Ports {
		port = sp.NodePort
	}
	url, err := p.Cluster.NodePortURL(ctx, p.cfg.EndpointHost, port)
	if err != nil {
		return "", fmt.Errorf("kubeless function %s: %w", name, err)
	}
	return url, nil
}

// Fingerprint implements platform.Fingerprinter: the cluster, Kubeless's
// component images and its controller configuration (its runtimes' images
// among it), and the ingress in front of the functions when there is one.
func (p *Platform) Fingerprint(ctx context.Context) (map[string]any, error) {
	f := p.Session.Fingerprint(ctx, Name, p.cfg.KubelessNamespace)
	f["validated"] = Validated
	if cfg, err := p.Cluster.ConfigMapData(ctx, p.cfg.KubelessNamespace, "kubeless-config"); err == nil {
		f["kubeless_config"] = cfg
	}
	if p.cfg.IngressURL != "" {
		f["ingress"] = p.Cluster.IngressFacts(ctx, p.cfg.IngressURL, IngressClass)
	}
	return f, nil
}

// Requirements are what a run needs of the cluster.
// Kubeless's last release (v1.0.8, 579f848) reads its CRD's annotations through
// apiextensions.k8s.io/v1beta1 when its controller starts and exits when
// that fails (pkg/controller/function_controller.go NewFunctionController ->
// pkg/utils/kubelessutil.go getConfigLocation -> pkg/utils/k8sutil.go
// GetAnnotationsFromCRD), and Kubernetes 1.22 stopped serving v1beta1.
func Requirements() kube.Requirements {
	r := kube.CRDRequirements(Kinds())
	r.Below = kube.Minor{Major: 1, Minor: 22}
	r.BelowWhy = "Kubeless' controller reads its CRD through apiextensions.k8s.io/v1beta1, which Kubernetes 1.22 removed, and exits when it cannot (pkg/utils/k8sutil.go GetAnnotationsFromCRD, kubeless v1.0.8)"
	return r
}
