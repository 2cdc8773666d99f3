package openwhisk

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// fakeHost stands for the baseline platform the servers run on: it records what it was asked.
type fakeHost struct {
	mu     sync.Mutex
	events []string
}

func (h *fakeHost) record(e string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, e)
}

func (h *fakeHost) Deploy(_ context.Context, fn platform.Function) error {
	h.record("deploy " + fn.Name + " " + fn.Language)
	return nil
}

func (h *fakeHost) DirectEndpoints(_ context.Context, name string) ([]string, error) {
	return []string{"http://10.250.0.9:8080/" + name}, nil
}

func (h *fakeHost) Remove(_ context.Context, name string) error {
	h.record("remove " + name)
	return nil
}

func (h *fakeHost) Close(context.Context) error {
	h.record("close")
	return nil
}

// baseline.server's server is no OpenWhisk action (an action's container answers only OpenWhisk's /init and
// /run): it runs on the server host, opened once with its first deploy, is called there straight at its pod,
// and is removed and closed with the run; an action is never called past the controller (via direct refused).
func TestServersRunBesideOpenWhisk(t *testing.T) {
	p, s := start(t)
	h := &fakeHost{}
	opened := 0
	p.srv.open = func(context.Context) (serverHost, error) { opened++; return h, nil }
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "prime", Workload: "prime", Language: "node"}); err != nil {
		t.Fatal(err)
	}
	for range 2 { // deployed again after a reset between repetitions: one host still
		if err := p.Deploy(ctx, platform.Function{Name: "prime-server", Workload: "prime", Language: "java", Replicas: 1, Server: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := s.actions["prime-server"]; ok || s.actions["prime"] == nil || opened != 1 {
		t.Fatalf("actions %v, host opened %d times: want prime an action, its server on the host opened once", slices.Sorted(maps.Keys(s.actions)), opened)
	}
	eps, err := p.DirectEndpoints(ctx, "prime-server")
	if err != nil || !slices.Equal(eps, []string{"http://10.250.0.9:8080/prime-server"}) {
		t.Errorf("server's endpoints %v, %v: want its pod's", eps, err)
	}
	if _, err := p.DirectEndpoints(ctx, "prime"); !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "baseline.via direct") {
		t.Errorf("an action called directly: %v, want a refusal naming baseline.via direct", err)
	}
	if err := p.Remove(ctx, "prime-server"); err != nil {
		t.Fatal(err)
	}
	if s.actions["prime"] == nil {
		t.Error("removing the server removed the action")
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"deploy prime-server java", "deploy prime-server java", "remove prime-server", "close"}
	if !slices.Equal(h.events, want) || len(s.actions) != 0 {
		t.Errorf("host saw %q, %d actions left: want %q and none", h.events, len(s.actions), want)
	}
}

// A run with no server never opens the host (no cluster needed); a host that cannot be opened is named with
// the option that says where the servers run.
func TestServersHostOpenedOnlyForAServer(t *testing.T) {
	p, _ := start(t)
	p.srv.open = func(context.Context) (serverHost, error) { return nil, errors.New("no cluster") }
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "prime", Workload: "prime", Language: "node"}); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(ctx); err != nil {
		t.Errorf("close without a server: %v", err)
	}
	p, _ = start(t)
	p.srv.open = func(context.Context) (serverHost, error) { return nil, errors.New("no cluster") }
	err := p.Deploy(ctx, platform.Function{Name: "prime-server", Workload: "prime", Language: "java", Server: true})
	if err == nil || !strings.Contains(err.Error(), "server prime-server: no cluster") {
		t.Errorf("deploy with no host: %v", err)
	}
	real := openBaseline("ow-run", map[string]any{"kubeconfig": t.TempDir() + "/none"})
	if _, err := real(ctx); err == nil || !strings.Contains(err.Error(), "platform.options.servers") {
		t.Errorf("the baseline platform on a missing kubeconfig: %v, want the option named", err)
	}
}

// platform.options.servers is the baseline platform's options, OpenWhisk's image prefix and tag where it names
// none, and a ClusterIP Service (no port on the nodes); a bad one is named under platform.options.servers.
func TestServerOptions(t *testing.T) {
	cfg, err := ParseConfig(platform.Config{RunID: "r", Options: map[string]any{"image_tag": "local",
		"servers": map[string]any{"namespace": "faasbench-servers"}}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Servers["image_tag"] != "local" || cfg.Servers["image_prefix"] != "faasbench/" || cfg.Servers["namespace"] != "faasbench-servers" ||
		cfg.Servers["service_type"] != "ClusterIP" {
		t.Errorf("servers options %v", cfg.Servers)
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{map[string]any{"namespace": "Bad_NS"}, "platform.options.servers.namespace:"},
		{map[string]any{"replicas": 2}, "platform.options.servers.replicas: unknown option for the baseline platform"},
		{"fast", "platform.options.servers: want a map"},
	} {
		if _, err := ParseConfig(platform.Config{RunID: "r", Options: map[string]any{"servers": c.v}}); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("servers %v: %v, want %q", c.v, err, c.want)
		}
	}
}
