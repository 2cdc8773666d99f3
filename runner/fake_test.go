package runner

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/workloads"
)

// fakePlatform is a platform of one HTTP server answering every function
// with "pong", the hello workload's reply, as one instance.
type fakePlatform struct {
	srv    *httptest.Server
	mu     sync.Mutex
	events []string
}

func (p *fakePlatform) record(e string) {
	p.mu.Lock()
	p.events = append(p.events, e)
	p.mu.Unlock()
}

func (p *fakePlatform) Name() string { return "fake" }
func (p *fakePlatform) Deploy(_ context.Context, fn platform.Function) error {
	p.record("deploy " + fn.Name)
	return nil
}
func (p *fakePlatform) Scale(context.Context, string, int) error { return nil }
func (p *fakePlatform) Endpoint(_ context.Context, name string) (string, error) {
	return p.srv.URL + "/function/" + name, nil
}
func (p *fakePlatform) Remove(_ context.Context, name string) error {
	p.record("remove " + name)
	return nil
}
func (p *fakePlatform) Close(context.Context) error {
	p.record("close")
	p.srv.Close()
	return nil
}

// pongPlatform is a fakePlatform whose server answers every request as
// the hello workload's one instance ("pong", X-Fb-Instance fake-1), after
// record (nil: none) has seen the request.
func pongPlatform(record func(*http.Request)) *fakePlatform {
	return &fakePlatform{srv: httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if record != nil {
			record(r)
		}
		w.Header().Set("X-Fb-Instance", "fake-1")
		_, _ = w.Write([]byte("pong"))
	}))}
}

// fakeOptions are runner options with the fake platform registered and
// the repository's workload catalogue; fp gets the platform when made.
func fakeOptions(t *testing.T, fp **fakePlatform) Options {
	t.Helper()
	reg := platform.NewRegistry()
	err := reg.Register("fake", func(context.Context, platform.Config) (platform.Platform, error) {
		p := pongPlatform(nil)
		*fp = p
		return p, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := workloads.Load("../workloads")
	if err != nil {
		t.Fatal(err)
	}
	return Options{Platforms: reg, Catalog: cat, ResultsDir: t.TempDir(), NoPin: true}
}

// withPlatform makes mk's platform the registry's "fake" in o (a test's own fake: another handler,
// another capability).
func withPlatform(t *testing.T, o *Options, mk func() platform.Platform) {
	t.Helper()
	reg := platform.NewRegistry()
	if err := reg.Register("fake", func(context.Context, platform.Config) (platform.Platform, error) { return mk(), nil }); err != nil {
		t.Fatal(err)
	}
	o.Platforms = reg
}

// writeSpec writes a spec file and returns its path.
func writeSpec(t *testing.T, yaml string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// execute loads, opens and executes a spec; it returns the run and
// Execute's error.
func execute(t *testing.T, yaml string, o Options) (*Run, error) {
	t.Helper()
	return executeIn(context.Background(), t, yaml, o)
}

// executeIn is execute with ctx (a test that interrupts the run).
func executeIn(ctx context.Context, t *testing.T, yaml string, o Options) (*Run, error) {
	t.Helper()
	p, err := LoadSpec(writeSpec(t, yaml), nil, o)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(p, o)
	if err != nil {
		t.Fatal(err)
	}
	return r, r.Execute(ctx)
}

// runSpec loads, opens and executes a spec to the end.
func runSpec(t *testing.T, yaml string, o Options) *Run {
	t.Helper()
	r, err := execute(t, yaml, o)
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	return r
}

// runSpecLagging is runSpec for a test of what an open loop sent, not of its validity: a run left with nothing
// valid only because the generator sent late (its lag p99 over load.DefaultThresholds' 10 ms: the test
// machine's load, e.g. -race beside make test's background builds on 2 cores) is kept, and said in the log;
// any other reason fails the test as runSpec does.
func runSpecLagging(t *testing.T, yaml string, o Options) *Run {
	t.Helper()
	r, err := execute(t, yaml, o)
	if err == nil {
		return r
	}
	if !errors.Is(err, ErrNothingValid) {
		t.Fatalf("execute: %v", err)
	}
	for _, c := range r.Summary().Cells {
		for _, w := range c.Warnings {
			if strings.HasPrefix(w, "invalid: ") && !strings.HasPrefix(w, "invalid: generator lag p99 ") {
				t.Fatalf("execute: %v (cell %s: %s)", err, c.ID, w)
			}
		}
	}
	t.Logf("the generator sent late on this machine (kept, the test is not of validity): %v", err)
	return r
}
