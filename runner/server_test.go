package runner

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// serverPlatform is the fake platform with direct calls: each function's
// instance at /direct/NAME; it records what was deployed, in which language,
// and which paths the requests took.
type serverPlatform struct {
	*fakePlatform
	mu      sync.Mutex
	langs   map[string]string
	paths   map[string]int
	servers []string // the functions deployed marked platform.Function.Server
}

func (p *serverPlatform) Deploy(ctx context.Context, fn platform.Function) error {
	p.mu.Lock()
	p.langs[fn.Name] = fn.Language
	if fn.Server {
		p.servers = append(p.servers, fn.Name)
	}
	p.mu.Unlock()
	return p.fakePlatform.Deploy(ctx, fn)
}

func (p *serverPlatform) DirectEndpoints(_ context.Context, name string) ([]string, error) {
	return []string{p.srv.URL + "/direct/" + name}, nil
}

// The via=server cells call a separate server of the function's workload, deployed beside it in the
// server's language (seed 004's Spring Boot application), straight at its instance; the gateway cells
// call the platform's function. Its server is deployed once, with the first cell that calls it.
func TestViaServerCallsASeparateServer(t *testing.T) {
	var sp *serverPlatform
	o := fakeOptions(t, new(*fakePlatform))
	withPlatform(t, &o, func() platform.Platform {
		sp = &serverPlatform{langs: map[string]string{}, paths: map[string]int{}}
		sp.fakePlatform = pongPlatform(func(r *http.Request) {
			sp.mu.Lock()
			sp.paths[r.URL.Path]++
			sp.mu.Unlock()
		})
		return sp
	})
	r := runSpec(t, `version: 1
name: server
kind: baseline
platform: {name: fake}
functions: [{name: ping, workload: hello, language: python}]
baseline: {via: [gateway, server], server: {language: go}}
load: {concurrency: [1], requests: 5, warmup: 0s}
repetitions: 2
`, o)
	if sp.langs["ping"] != "python" || sp.langs["ping-server"] != "go" || len(sp.langs) != 2 {
		t.Fatalf("deployed %v: want ping in python and its server ping-server in go", sp.langs)
	}
	// The platform is told which is the server (OpenWhisk runs it beside itself, not as an action).
	if !slices.Equal(sp.servers, []string{"ping-server"}) {
		t.Errorf("deployed as servers: %v, want ping-server alone", sp.servers)
	}
	for _, c := range r.Summary().Cells {
		if c.Requests.Total != 5 || c.Requests.Failed != 0 {
			t.Errorf("cell %s: %d requests, %d failed: want 5 answered", c.ID, c.Requests.Total, c.Requests.Failed)
		}
	}
	if n := sp.paths["/direct/ping-server"]; n < 10 {
		t.Errorf("the server got %d requests, want at least the 5 of each repetition's cell (%v)", n, sp.paths)
	}
	if sp.paths["/function/ping-server"] != 0 || sp.paths["/direct/ping"] != 0 {
		t.Errorf("requests took %v: the server is called past the gateway, the function only through it", sp.paths)
	}
	deploys := 0
	for _, e := range sp.events {
		if e == "deploy ping-server" {
			deploys++
		}
	}
	if deploys != 1 || !slices.Contains(sp.events, "close") {
		t.Errorf("events %v: want the server deployed once and the platform closed", sp.events)
	}
}
