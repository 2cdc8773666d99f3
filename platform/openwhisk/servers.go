package openwhisk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/baseline"
)

// The servers of baseline.server (seed 004's Figs 5.1-5.3: the same functions as a Spring Boot application on the
// Kubernetes cluster beside OpenWhisk). An OpenWhisk action cannot be one: its container answers only OpenWhisk's
// action protocol (/init, then /run with the activation's JSON), behind the controller. So a server runs on the
// cluster OpenWhisk runs on as a plain Deployment and Service (platform/baseline), called straight at its pod as
// every platform's server is (baseline.via server), opened on the first server's deploy with
// platform.options.servers (baseline's options: kubeconfig, context, namespace, image_prefix, image_tag,
// pull_policy, ...; the image prefix and tag default to OpenWhisk's own).

// serverHost runs the servers: a baseline.Platform, or a test's fake.
type serverHost interface {
	Deploy(ctx context.Context, fn platform.Function) error
	DirectEndpoints(ctx context.Context, name string) ([]string, error)
	Remove(ctx context.Context, name string) error
	Close(ctx context.Context) error
}

// servers opens the host once, when a server is first deployed, and knows which names are servers.
type servers struct {
	open func(ctx context.Context) (serverHost, error)

	mu    sync.Mutex
	host  serverHost
	names map[string]bool
}

// serverOptions is platform.options.servers as baseline's options, with OpenWhisk's image prefix and tag where
// it names none, and a ClusterIP Service unless it names another type: a server is called at its pod, so
// nothing opens a port on the cluster's nodes for it (baseline's own default is NodePort). Errors name the
// option under platform.options.servers.
func serverOptions(v any, c Config) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if v != nil && !ok {
		return nil, fmt.Errorf("platform.options.servers: want a map of the baseline platform's options for the servers of baseline.server (kubeconfig, namespace, image_tag, ...), got %T", v)
	}
	out := map[string]any{"image_prefix": c.ImagePrefix, "image_tag": c.ImageTag, "service_type": "ClusterIP"}
	// The spec's platform.kubeconfig and platform.context (a spec's options are strings: the servers' map can
	// only come from code) name the cluster, as for the action pods.
	for k, x := range map[string]string{"kubeconfig": c.Kube.Kubeconfig, "context": c.Kube.Context} {
		if x != "" {
			out[k] = x
		}
	}
	for k, x := range m {
		out[k] = x
	}
	if _, err := baseline.ParseConfig(c.RunID, out); err != nil {
		return nil, serverOptionError(err)
	}
	return out, nil
}

// serverOptionError names the option as the spec has it: platform.options.servers.X, not baseline's
// platform.options.X.
func serverOptionError(err error) error {
	return errors.New(strings.Replace(err.Error(), "platform.options.", "platform.options.servers.", 1))
}

// openBaseline is servers.open for a run: the baseline platform on the cluster opts name.
func openBaseline(runID string, opts map[string]any) func(ctx context.Context) (serverHost, error) {
	return func(ctx context.Context) (serverHost, error) {
		cfg, err := baseline.ParseConfig(runID, opts)
		if err != nil {
			return nil, serverOptionError(err)
		}
		p, err := baseline.Open(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("the servers of baseline.server run on Kubernetes beside OpenWhisk (platform.options.servers: kubeconfig, namespace): %w", err)
		}
		return p, nil
	}
}

// is says whether name is a server this run deployed.
func (s *servers) is(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.names[name]
}

// deploy opens the host when needed (once) and deploys fn on it, outside the lock (a deploy waits for its pod).
func (s *servers) deploy(ctx context.Context, fn platform.Function) error {
	h, err := s.hostFor(ctx, fn.Name)
	if err != nil {
		return fmt.Errorf("server %s: %w", fn.Name, err)
	}
	return h.Deploy(ctx, fn)
}

// hostFor opens the host when none is open and marks name a server.
func (s *servers) hostFor(ctx context.Context, name string) (serverHost, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.host == nil {
		h, err := s.open(ctx)
		if err != nil {
			return nil, err
		}
		s.host = h
	}
	if s.names == nil {
		s.names = map[string]bool{}
	}
	s.names[name] = true
	return s.host, nil
}

// endpoints are the server's pods' addresses.
func (s *servers) endpoints(ctx context.Context, name string) ([]string, error) {
	s.mu.Lock()
	h := s.host
	s.mu.Unlock()
	if h == nil {
		return nil, fmt.Errorf("server %s: not deployed", name)
	}
	return h.DirectEndpoints(ctx, name)
}

// remove deletes the server.
func (s *servers) remove(ctx context.Context, name string) error {
	s.mu.Lock()
	h := s.host
	delete(s.names, name)
	s.mu.Unlock()
	if h == nil {
		return nil
	}
	return h.Remove(ctx, name)
}

// close removes what is left of the servers and releases the host (nothing when none was deployed).
func (s *servers) close(ctx context.Context) error {
	s.mu.Lock()
	h := s.host
	s.host, s.names = nil, nil
	s.mu.Unlock()
	if h == nil {
		return nil
	}
	if err := h.Close(ctx); err != nil {
		return fmt.Errorf("the servers of baseline.server: %w", err)
	}
	return nil
}

// DirectEndpoints implements platform.DirectCaller for the servers of baseline.server only: an action is called
// through OpenWhisk's controller, never at its container (baseline.via direct is refused).
func (p *Platform) DirectEndpoints(ctx context.Context, name string) ([]string, error) {
	if !p.srv.is(name) {
		return nil, fmt.Errorf("%w: baseline.via direct: an OpenWhisk action is called through the controller only (its container answers OpenWhisk's /init and /run, not the function's requests); via server runs the function's server beside OpenWhisk", platform.ErrRefused)
	}
	return p.srv.endpoints(ctx, name)
}

// sample is a server's pods' CPU and memory, when the host samples them (the baseline platform does).
func (s *servers) sample(ctx context.Context, name string) (platform.FunctionUsage, error) {
	s.mu.Lock()
	h := s.host
	s.mu.Unlock()
	rs, ok := h.(platform.ResourceSampler)
	if !ok {
		return platform.FunctionUsage{}, fmt.Errorf("server %s: its host samples no resources", name)
	}
	return rs.SampleResources(ctx, name)
}
