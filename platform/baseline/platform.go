// Package baseline is the server baseline on Kubernetes (seed 004 compared
// OpenWhisk with the same functions as an always-on server): each function
// is a Deployment and a Service running the workload's image, with fixed
// replicas through the scale subresource or an optional CPU
// HorizontalPodAutoscaler.
package baseline

import (
	"context"
	"fmt"
	"net"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Name is the registry name.
const Name = "baseline"

// Platform runs functions as plain Deployments.
type Platform struct {
	*kube.Session
	cfg Config

	functions kube.Functions[platform.Function]
}

var (
	_ platform.Platform        = (*Platform)(nil)
	_ platform.CPUCapacity     = (*Platform)(nil)
	_ platform.ReplicaWatcher  = (*Platform)(nil)
	_ platform.ResourceSampler = (*Platform)(nil)
	_ platform.ColdStarter     = (*Platform)(nil)
	_ platform.DirectCaller    = (*Platform)(nil)
	_ platform.Fingerprinter   = (*Platform)(nil)
)

// New connects to the cluster, makes the namespace when needed and starts
// watching what this run creates.
func New(ctx context.Context, pc platform.Config) (*Platform, error) {
	cfg, err := ParseConfig(pc.RunID, pc.Options)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg)
}

// Open is New with a parsed configuration.
func Open(ctx context.Context, cfg Config) (*Platform, error) {
	s, err := kube.OpenSession(ctx, cfg.Common, nil, nil)
	if err != nil {
		return nil, err
	}
	return &Platform{Session: s, cfg: cfg}, nil
}

// Name implements platform.Platform.
func (p *Platform) Name() string { return Name }

// Deploy implements platform.Platform: create (or update) the Deployment,
// Service and optional HPA, and wait for the replicas.
func (p *Platform) Deploy(ctx context.Context, fn platform.Function) error {
	s, err := ParseSettings(fn)
	if err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
	}
	// Secret values go in a Secret the pod references (kube/secret.go).
	if err := p.PutEnvSecret(ctx, fn); err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
	}
	ns := p.Namespace()
	p.functions.Put(fn.Name, fn)
	dep := p.cfg.Deployment(ns, fn, s)
	deps := p.Cluster.Client.AppsV1().Deployments(ns)
	if _, err := deps.Create(ctx, dep, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
		// A redeploy: update in place, retrying when a controller (the
		// HPA, the deployment controller) changed the object meanwhile.
		err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			old, gerr := deps.Get(ctx, fn.Name, metav1.GetOptions{})
			if gerr != nil {
				return gerr
			}
			if old.Labels[kube.LabelManagedBy] != kube.ManagedBy {
				return fmt.Errorf("deployment %s/%s exists and was not made by faasbench: choose another function name or namespace", ns, fn.Name)
			}
			dep.ResourceVersion = old.ResourceVersion
			_, uerr := deps.Update(ctx, dep, metav1.UpdateOptions{})
			return uerr
		})
		if err != nil {
			return fmt.Errorf("update deployment %s: %w", fn.Name, err)
		}
	} else if err != nil {
		return fmt.Errorf("create deployment %s: %w", fn.Name, err)
	}
	svc := p.cfg.Service(ns, fn)
	if _, err := p.Cluster.Client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create service %s: %w", fn.Name, err)
	}
	if hpa := p.cfg.HPA(ns, fn, s); hpa != nil {
		if _, err := p.Cluster.Client.AutoscalingV2().HorizontalPodAutoscalers(ns).Create(ctx, hpa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create autoscaler %s: %w", fn.Name, err)
		}
	}
	return p.waitServing(ctx, fn.Name, fn.Replicas)
}

// waitServing waits for the replicas, then for the Service to route to them: its EndpointSlices
// list them and, on a cluster whose nodes are real, the health path answers through the endpoint.
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
	ep, err := p.Endpoint(ctx, name)
	if err != nil {
		return err
	}
	return kube.WaitHealthy(ctx, ep, n, p.cfg.ReadyTimeout, nil)
}

// Scale implements platform.Platform through the Deployment's scale
// subresource.
func (p *Platform) Scale(ctx context.Context, name string, replicas int) error {
	if replicas < 0 {
		return fmt.Errorf("scale %s: replicas %d is negative", name, replicas)
	}
	if err := p.Cluster.ScaleDeployment(ctx, p.Namespace(), name, replicas); err != nil {
		return err
	}
	if fn, ok := p.functions.Get(name); ok {
		fn.Replicas = replicas
		p.functions.Put(name, fn)
	}
	return p.waitServing(ctx, name, replicas)
}

// Endpoint implements platform.Platform: the Service's address as a client
// outside the cluster reaches it (NodePort: a node's address and the node
// port; LoadBalancer: its ingress), or inside it (ClusterIP: the Service's
// DNS name).
func (p *Platform) Endpoint(ctx context.Context, name string) (string, error) {
	svc, err := p.Cluster.Client.CoreV1().Services(p.Namespace()).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("service %s: %w", name, err)
	}
	return p.endpointOf(ctx, svc)
}

func (p *Platform) endpointOf(ctx context.Context, svc *corev1.Service) (string, error) {
	switch svc.Spec.Type {
	case corev1.ServiceTypeNodePort:
		var port int32
		for _, sp := range svc.Spec.Ports {
			port = sp.NodePort
		}
		url, err := p.Cluster.NodePortURL(ctx, p.cfg.EndpointHost, port)
		if err != nil {
			return "", fmt.Errorf("service %s: %w", svc.Name, err)
		}
		return url, nil
	case corev1.ServiceTypeLoadBalancer:
		for _, in := range svc.Status.LoadBalancer.Ingress {
			h := in.IP
			if h == "" {
				h = in.Hostname
			}
			if h != "" {
				return "http://" + net.JoinHostPort(h, strconv.Itoa(kube.Port)) + "/", nil
			}
		}
		return "", fmt.Errorf("service %s: the load balancer has no address yet", svc.Name)
	default:
		return fmt.Sprintf("http://%s.%s.svc.cluster.local:%d/", svc.Name, svc.Namespace, kube.Port), nil
	}
}

// DirectEndpoints implements platform.DirectCaller: every ready pod's
// address (reachable from inside the cluster).
func (p *Platform) DirectEndpoints(ctx context.Context, name string) ([]string, error) {
	return p.PodEndpoints(ctx, name, kube.Port)
}

// MakeCold implements platform.ColdStarter. A baseline never starts a pod
// on demand, so coldness is forced by scaling to zero and back: the next
// call is the first request a new pod's process serves (the first-request
// cost, not a pod start on the request path).
func (p *Platform) MakeCold(ctx context.Context, name string) (platform.Cold, error) {
	fn, ok := p.functions.Get(name)
	if !ok {
		return platform.Cold{}, fmt.Errorf("make %s cold: not deployed by this run", name)
	}
	n := max(fn.Replicas, 1)
	if err := p.Scale(ctx, name, 0); err != nil {
		return platform.Cold{}, err
	}
	if err := p.Scale(ctx, name, n); err != nil {
		return platform.Cold{}, err
	}
	return platform.Cold{How: fmt.Sprintf("scaled to 0 and back to %d: new pods, the next call is a process's first (no on-demand pod start)", n), OnPath: false}, nil
}

// Fingerprint implements platform.Fingerprinter.
func (p *Platform) Fingerprint(ctx context.Context) (map[string]any, error) {
	f := p.Session.Fingerprint(ctx, Name, "")
	f["validated"] = Validated
	f["service_type"] = string(p.cfg.ServiceType)
	return f, nil
}

// Remove implements platform.Platform: delete the function's objects and
// wait for its pods to go.
func (p *Platform) Remove(ctx context.Context, name string) error {
	p.functions.Delete(name)
	return p.Session.Remove(ctx, name)
}

// Requirements are what the baseline needs of a cluster (for the preflight).
func Requirements() kube.Requirements {
	needs := kube.WorkloadNeeds()
	needs = append(needs, kube.Need{Group: "autoscaling", Resource: "horizontalpodautoscalers", Verb: "create", Optional: true})
	return kube.Requirements{APIs: nil, Needs: needs}
}
