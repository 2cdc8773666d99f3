package knative

import (
	"context"
	"fmt"
	"net/url"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

var (
	_ platform.HostRouter   = (*Platform)(nil)
	_ platform.DirectCaller = (*Platform)(nil)
	_ platform.PathReporter = (*Platform)(nil)
)

// SKSGVR is the ServerlessService Serving keeps per revision (knative.dev/networking): its mode
// says whether the activator is in the revision's data path (Proxy) or not (Serve).
var SKSGVR = schema.GroupVersionResource{Group: "networking.internal.knative.dev", Version: "v1alpha1", Resource: "serverlessservices"}

// QueuePort is queue-proxy's HTTP port in every revision pod (knative.dev/serving
// pkg/apis/networking: BackendHTTPPort); calling it directly skips the ingress and the
// activator but keeps the queue-proxy, as a revision is always served.
const QueuePort = 8012

// serviceStatus reads the Service's status.
func (p *Platform) serviceStatus(ctx context.Context, name string) (status, error) {
	u, err := p.services().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return status{}, fmt.Errorf("knative service %s: %w", name, err)
	}
	var st status
	if err := kube.StatusOf(u, &st); err != nil {
		return st, fmt.Errorf("knative service %s: status: %w", name, err)
	}
	return st, nil
}

// Endpoint implements platform.Platform: the gateway (platform.options.gateway) when one is
// given, the request's host then being the function's (FunctionHost); else the Service's
// status.url, which must resolve where the load runs.
func (p *Platform) Endpoint(ctx context.Context, name string) (string, error) {
	st, err := p.serviceStatus(ctx, name)
	if err != nil {
		return "", err
	}
	if st.URL == "" {
		return "", fmt.Errorf("knative service %s has no URL yet (status.url)", name)
	}
	if p.cfg.Gateway != "" {
		return p.cfg.Gateway + "/", nil
	}
	return st.URL + "/", nil
}

// FunctionHost implements platform.HostRouter: the host of the Service's status.url when the
// load goes to a gateway, "" otherwise.
func (p *Platform) FunctionHost(ctx context.Context, name string) (string, error) {
	if p.cfg.Gateway == "" {
		return "", nil
	}
	st, err := p.serviceStatus(ctx, name)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(st.URL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("knative service %s: status.url %q has no host", name, st.URL)
	}
	return u.Host, nil
}

// DirectEndpoints implements platform.DirectCaller: every ready pod of the function's revisions at
// its queue-proxy (no ingress, no activator), reachable from inside the cluster.
func (p *Platform) DirectEndpoints(ctx context.Context, name string) ([]string, error) {
	return p.PodEndpoints(ctx, name, QueuePort)
}

// DataPath implements platform.PathReporter: the mode of the latest ready revision's
// ServerlessService. Proxy: requests go through the activator (scaled to zero, or too little
// spare capacity for target-burst-capacity); Serve: the ingress sends them to the pods.
func (p *Platform) DataPath(ctx context.Context, name string) (string, error) {
	st, err := p.serviceStatus(ctx, name)
	if err != nil {
		return "", err
	}
	if st.LatestReady == "" {
		return "", fmt.Errorf("knative service %s has no ready revision", name)
	}
	u, err := p.Cluster.Dynamic.Resource(SKSGVR).Namespace(p.Namespace()).Get(ctx, st.LatestReady, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("serverless service %s: %w", st.LatestReady, err)
	}
	var sks struct {
		Mode string `json:"mode"`
	}
	spec, _ := u.Object["spec"].(map[string]any)
	sks.Mode, _ = spec["mode"].(string)
	switch sks.Mode {
	case "Proxy":
		return "activator (revision " + st.LatestReady + ": ServerlessService mode Proxy)", nil
	case "Serve":
		return "pods (revision " + st.LatestReady + ": ServerlessService mode Serve, no activator)", nil
	}
	return "", fmt.Errorf("serverless service %s: mode %q", st.LatestReady, sks.Mode)
}
