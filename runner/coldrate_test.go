package runner

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
)

// coldFake is a platform whose every function starts an instance on its
// first call through two slots of 100 ms: at most 20 cold starts a second,
// and a faster rate queues. It answers as the hello workload ("pong").
type coldFake struct {
	fakePlatform
	started  map[string]bool
	paths    map[string]string
	replicas map[string]int
	slots    chan struct{}
}

func newColdFake() *coldFake {
	f := &coldFake{started: map[string]bool{}, paths: map[string]string{}, replicas: map[string]int{}, slots: make(chan struct{}, 2)}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/function/")
		name, _, _ = strings.Cut(name, "/")
		f.mu.Lock()
		cold := !f.started[name]
		f.started[name] = true
		f.paths[name] = r.URL.Path
		f.mu.Unlock()
		if cold {
			f.slots <- struct{}{}
			time.Sleep(100 * time.Millisecond)
			<-f.slots
			w.Header().Set("X-Fb-Cold", "1")
		}
		w.Header().Set("X-Fb-Instance", name+"-1")
		_, _ = w.Write([]byte("pong"))
	}))
	return f
}

func (f *coldFake) Deploy(ctx context.Context, fn platform.Function) error {
	f.mu.Lock()
	f.replicas[fn.Name] = fn.Replicas
	f.mu.Unlock()
	return f.fakePlatform.Deploy(ctx, fn)
}

// Kind coldrate on a platform of known cold-start capacity (20 a second):
// each step's copies are deployed at zero instances, called once each by
// their own name with the spec's request, cold, and removed; the curve stops past the knee (10 a
// second: 40 is not sustained, 80 never runs); the summary, the decisions
// and the report say the knee.
func TestColdRateKindFindsTheKneeAndRemovesItsCopies(t *testing.T) {
	o := fakeOptions(t, new(*fakePlatform))
	var f *coldFake
	withPlatform(t, &o, func() platform.Platform { f = newColdFake(); return f })
	spec := `version: 1
name: cr
kind: coldrate
platform: {name: fake}
functions: [{workload: hello, language: go, request: {path: /by-spec}}]
coldrate: {rates: [5, 10, 40, 80], step: 1s, bound: 1s}
repetitions: 1
`
	r := runSpec(t, spec, o)
	s := r.Summary()
	if len(s.Cells) != 3 {
		t.Fatalf("%d cells, want 5, 10 and 40 a second (the curve ends past the knee)", len(s.Cells))
	}
	for i, c := range s.Cells {
		st := c.ColdRate
		if st == nil || st.Step != i+1 || st.Calls != int(st.RatePerS) || c.Kind != "coldrate" {
			t.Fatalf("cell %s: %+v", c.ID, st)
		}
		t.Logf("%v/s: %d calls, %d cold, %.1f completed/s, max %.0f ms, sustained %v %s", st.RatePerS, st.Calls, st.Cold, st.CompletedPerS, c.LatencyMs.Max, st.Sustained, st.Why)
		if st.Sustained != (st.RatePerS <= 10) {
			t.Errorf("%v/s: sustained %v (%s)", st.RatePerS, st.Sustained, st.Why)
		}
		if st.RatePerS <= 10 && (st.Cold != int64(st.Calls) || c.Requests.Succeeded != int64(st.Calls) || c.ColdStarts != int64(st.Calls)) {
			t.Errorf("%v/s: %d cold of %d calls, %+v", st.RatePerS, st.Cold, st.Calls, c.Requests)
		}
	}
	knees := results.ColdRateKnees(s.Cells)
	if len(knees) != 1 || knees[0].KneePerS != 10 || knees[0].Curve != "hello-go" {
		t.Errorf("knees %+v", knees)
	}
	// Every copy deployed at zero, called by its own name, and removed.
	f.mu.Lock()
	deployed, removed := map[string]bool{}, map[string]bool{}
	for _, e := range f.events {
		if name, ok := strings.CutPrefix(e, "deploy "); ok && strings.Contains(name, "-cr1-") {
			deployed[name] = true
			if f.replicas[name] != 0 || !strings.HasSuffix(f.paths[name], name+"/by-spec") {
				t.Errorf("copy %s: replicas %d, called at %q (want its own name and the spec's path)", name, f.replicas[name], f.paths[name])
			}
		}
		if name, ok := strings.CutPrefix(e, "remove "); ok {
			removed[name] = true
		}
	}
	f.mu.Unlock()
	if len(deployed) != 5+10+40 {
		t.Errorf("%d copies deployed, want 55", len(deployed))
	}
	for name := range deployed {
		if !removed[name] {
			t.Errorf("copy %s not removed", name)
		}
	}
	dir := r.Dir()
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil || !strings.Contains(string(md), "Cold-start throughput of hello-go (r=1): knee 10 cold starts a second") {
		t.Errorf("summary.md lacks the knee: %v\n%s", err, md)
	}
	dec, err := os.ReadFile(filepath.Join(dir, "decisions.json"))
	if err != nil || !strings.Contains(string(dec), "past the knee") {
		t.Errorf("decisions.json: %v\n%s", err, dec)
	}
}

// A bad coldrate section is refused naming its field, before anything is
// deployed.
func TestColdRateKindRefusesBadRates(t *testing.T) {
	var fp *fakePlatform
	o := fakeOptions(t, &fp)
	for _, tc := range []struct{ section, want string }{
		{"coldrate: {rates: [5, 2]}", "coldrate.rates[1]"},
		{"coldrate: {rates: []}", "coldrate.rates"},
		{"coldrate: {rates: [2000], step: 5s}", "coldrate.rates[0]"},
		{"coldrate: {rates: [1], step: 1ms}", "coldrate.step"},
		{"coldrate: {rates: [1], bound: 20m}", "coldrate.bound"},
		{"coldrate: {rates: [1]}\nvary: {replicas: [2]}", "vary.replicas"},
		{"coldrate: {rates: [1]}\nload: {generators: {count: 2}}", "load.generators"},
		{"coldrate: {rates: [1]}\nload: {rate: [5]}", "load.rate"},
	} {
		spec := "version: 1\nname: cr\nkind: coldrate\nplatform: {name: fake}\nfunctions: [{workload: hello, language: go}]\nrepetitions: 1\n" + tc.section + "\n"
		_, err := LoadSpec(writeSpec(t, spec), nil, o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", tc.section, err, tc.want)
		}
	}
	if fp != nil {
		t.Errorf("a platform was opened: %v", fp.events)
	}
}
