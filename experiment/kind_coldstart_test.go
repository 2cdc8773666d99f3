package experiment

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// A cold-start call carries the cell's headers, and a Host header becomes the request's host: a
// gateway that routes by host (Knative's ingress) answered 404 to every cold start before.
func TestColdCallCarriesTheCellsHeaders(t *testing.T) {
	var host, token string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, token = r.Host, r.Header.Get("X-Token")
		w.Header().Set("X-Fb-Cold", "1")
		w.Header().Set("X-Fb-Instance", "pod-a-12")
	}))
	defer srv.Close()
	r, err := call(context.Background(), nil, load.Target{Method: "GET", URL: srv.URL + "/",
		Header: http.Header{"Host": {"hello.ns.example.com"}, "X-Token": {"t1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if host != "hello.ns.example.com" || token != "t1" {
		t.Errorf("the server saw host %q and token %q", host, token)
	}
	if r.status != 200 || !r.cold || r.instance != "pod-a-12" {
		t.Errorf("reply %+v", r)
	}
}

// The first byte is timed apart from the whole reply (a reply whose body
// comes 30 ms after its header), and the platform's start record lands on
// the request's time line: ms after the send, negative for a start that
// was under way before it, absent for what the platform did not record.
func TestColdPhasesOnTheRequestsTimeLine(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		time.Sleep(30 * time.Millisecond)
		_, _ = w.Write([]byte("hello"))
	}))
	defer srv.Close()
	r, err := call(context.Background(), nil, load.Target{Method: "GET", URL: srv.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if r.firstByte <= 0 || r.latency-r.firstByte < 25*time.Millisecond {
		t.Errorf("first byte %v of a %v reply whose body came 30 ms after its header", r.firstByte, r.latency)
	}

	sent := time.Unix(50, 0)
	ms := func(n int) time.Time { return sent.Add(time.Duration(n) * time.Millisecond) }
	ph := phasesOf(reply{sent: sent, firstByte: 1800 * time.Millisecond},
		platform.StartedInstance{Accepted: ms(-30), Started: ms(-20), Scheduled: ms(40), Running: ms(1200), Ready: ms(1750)})
	want := []float64{-30, -20, 40, 1200, 1750, 1800}
	if len(ph.Values()) != len(results.PhaseNames) {
		t.Fatalf("%d phases, %d names", len(ph.Values()), len(results.PhaseNames))
	}
	for i, v := range ph.Values() {
		if v == nil || *v != want[i] {
			t.Errorf("%s: %v, want %v", results.PhaseNames[i], v, want[i])
		}
	}
	// OpenWhisk records when its controller took the request, not when the container was created:
	// the accepted phase, no created one.
	ow := phasesOf(reply{sent: sent}, platform.StartedInstance{Accepted: ms(2), Running: ms(900), Ready: ms(1100)})
	if ow.CreatedMs != nil || *ow.AcceptedMs != 2 || *ow.RunningMs != 900 {
		t.Errorf("a start stamped at its acceptance: %+v", ow)
	}
	local := phasesOf(reply{sent: sent}, platform.StartedInstance{Started: ms(3), Ready: ms(70)})
	if local.ScheduledMs != nil || local.RunningMs != nil || local.FirstByteMs != nil || *local.ReadyMs != 70 {
		t.Errorf("a process start (no scheduling, no containers): %+v", local)
	}
}

// A platform that started the instance before the request (Cold.OnPath false: a plain Deployment,
// OpenFaaS CE without scale_from_zero) gives a first-request sample with no start-up phases; one
// that started it for the request keeps the platform's kind and the phases.
func TestColdSampleKindFollowsWhetherTheStartWasOnThePath(t *testing.T) {
	sent := time.Now()
	r := reply{sent: sent, firstByte: 40 * time.Millisecond}
	st := platform.StartedInstance{ID: "p", Kind: "pod", Started: sent.Add(5 * time.Millisecond), Ready: sent.Add(30 * time.Millisecond)}
	if kind, ph := startOf(r, st, platform.Cold{OnPath: true}); kind != "pod" || ph == nil || ph.ReadyMs == nil || *ph.ReadyMs < 29 {
		t.Errorf("on the path: %q %+v", kind, ph)
	}
	if kind, ph := startOf(r, st, platform.Cold{}); kind != platform.KindFirstRequest || ph != nil {
		t.Errorf("off the path: %q %+v", kind, ph)
	}
	// Started by a deploy just before the send (OpenFaaS CE): its own kind, and the phases, the
	// creation before the send as a negative figure.
	early := st
	early.Started = sent.Add(-300 * time.Millisecond)
	if kind, ph := startOf(r, early, platform.Cold{OnPath: true, Deployed: true}); kind != platform.KindAfterDeploy || ph == nil || ph.CreatedMs == nil || *ph.CreatedMs > -299 {
		t.Errorf("after a deploy: %q %+v", kind, ph)
	}
}

// The verifier says yes only when every source agrees: each condition
// alone, broken, unverifies a sample that is otherwise cold.
func TestColdVerifierRefusesEachConditionAlone(t *testing.T) {
	since := time.Now()
	sent := since.Add(200 * time.Millisecond) // made cold, then sent
	good := reply{sent: sent, status: 200, cold: true, instance: "pod-a", latency: 900 * time.Millisecond}
	start := platform.StartedInstance{ID: "pod-a", Kind: "pod", Started: sent.Add(20 * time.Millisecond)}
	type tc struct {
		name    string
		r       reply
		seen    map[string]bool
		started []platform.StartedInstance
		cold    platform.Cold
		want    bool
	}
	with := func(f func(*reply)) reply { r := good; f(&r); return r }
	startedAt := func(at time.Time) []platform.StartedInstance {
		s := start
		s.Started = at
		return []platform.StartedInstance{s}
	}
	for _, c := range []tc{
		{"verified: cold, new, started for the request", good, nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, true},
		{"a failed reply", with(func(r *reply) { r.status = 503 }), nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, false},
		{"a 2xx that is not 200", with(func(r *reply) { r.status = 202 }), nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, false},
		{"no cold flag", with(func(r *reply) { r.cold = false }), nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, false},
		{"an instance seen before", good, map[string]bool{"pod-a": true}, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, false},
		{"no instance named", with(func(r *reply) { r.instance = "" }), nil, []platform.StartedInstance{{ID: "", Started: start.Started}}, platform.Cold{OnPath: true}, false},
		{"no start the platform recorded", good, nil, nil, platform.Cold{OnPath: true}, false},
		{"the platform started another instance", good, nil, []platform.StartedInstance{{ID: "pod-b", Kind: "pod", Started: start.Started}}, platform.Cold{OnPath: true}, false},
		{"a pod that existed before the iteration (off the path, where only this check holds)", good, nil, startedAt(since.Add(-time.Second)), platform.Cold{}, false},
		{"a pod that existed before the iteration", good, nil, startedAt(since.Add(-time.Second)), platform.Cold{OnPath: true}, false},
		{"a start with no time", good, nil, startedAt(time.Time{}), platform.Cold{OnPath: true}, false},
		{"an on-path start stamped before the send", good, nil, startedAt(sent.Add(-100 * time.Millisecond)), platform.Cold{OnPath: true}, false},
		{"an off-path start before the send is the platform's way", good, nil, startedAt(sent.Add(-100 * time.Millisecond)), platform.Cold{}, true},
		{"a pod name with the process id (Knative)", with(func(r *reply) { r.instance = "pod-a-17" }), nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, true},
		{"a pod name that only begins alike", with(func(r *reply) { r.instance = "pod-ab" }), nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, false},
		{"started by the deploy just before the send (OpenFaaS CE)", good, nil, startedAt(sent.Add(-100 * time.Millisecond)), platform.Cold{OnPath: true, Deployed: true}, true},
		{"a pod from before the redeploy", good, nil, startedAt(since.Add(-time.Second)), platform.Cold{OnPath: true, Deployed: true}, false},
		// OpenWhisk: no creation stamp, the controller's acceptance of the request stands for the start.
		{"a start stamped at its acceptance (OpenWhisk)", good, nil, []platform.StartedInstance{{ID: "pod-a", Kind: "container", Accepted: sent.Add(time.Millisecond)}}, platform.Cold{OnPath: true}, true},
		{"an acceptance before the iteration", good, nil, []platform.StartedInstance{{ID: "pod-a", Kind: "container", Accepted: since.Add(-time.Second)}}, platform.Cold{OnPath: true}, false},
		// Fission's poolmgr: a warm pool pod, started long before, given to the function on demand.
		{"a pool pod specialised for the request", good, nil, []platform.StartedInstance{{ID: "pod-a", Kind: platform.KindSpecialisation, Started: since.Add(-time.Minute)}}, platform.Cold{OnPath: true}, true},
		{"a specialised pod the function had already (seen)", good, map[string]bool{"pod-a": true}, []platform.StartedInstance{{ID: "pod-a", Kind: platform.KindSpecialisation, Started: since.Add(-time.Minute)}}, platform.Cold{OnPath: true}, false},
		{"a specialisation off the path is no such thing", good, nil, []platform.StartedInstance{{ID: "pod-a", Kind: platform.KindSpecialisation, Started: since.Add(-time.Minute)}}, platform.Cold{}, false},
		{"a specialisation without the function's cold flag", with(func(r *reply) { r.cold = false }), nil, []platform.StartedInstance{{ID: "pod-a", Kind: platform.KindSpecialisation, Started: since.Add(-time.Minute)}}, platform.Cold{OnPath: true}, false},
	} {
		seen := c.seen
		if seen == nil {
			seen = map[string]bool{}
		}
		smp := verifyCold(1, c.r, seen, c.started, since, c.cold, "")
		if smp.Verified != c.want {
			t.Errorf("%s: verified %v, want %v (%+v)", c.name, smp.Verified, c.want, smp)
		}
	}
}

// A function whose replies cannot carry the function's source (OpenFaaS's
// classic watchdog) is judged by the platform's record alone: verified
// only when exactly one instance started since it was made cold, on time,
// not seen before; the sample says it was judged so.
func TestColdVerifierOfAHeaderlessFunction(t *testing.T) {
	since := time.Now()
	sent := since.Add(200 * time.Millisecond)
	bare := reply{sent: sent, status: 200, latency: 900 * time.Millisecond} // no flag, no instance
	start := platform.StartedInstance{ID: "pod-a", Kind: "pod", Started: sent.Add(20 * time.Millisecond)}
	other := platform.StartedInstance{ID: "pod-b", Kind: "pod", Started: sent.Add(30 * time.Millisecond)}
	early := start // after the iteration began, before the send
	early.Started = sent.Add(-100 * time.Millisecond)
	const why = "the classic watchdog sends only the forked function's output"
	for _, c := range []struct {
		name       string
		r          reply
		seen       map[string]bool
		started    []platform.StartedInstance
		cold       platform.Cold
		headerless string
		want       bool
	}{
		{"one pod started for the request", bare, nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, why, true},
		{"one pod started by the deploy just before (OpenFaaS CE)", bare, nil, []platform.StartedInstance{early}, platform.Cold{OnPath: true, Deployed: true}, why, true},
		{"the same reply from a function that can say (not headerless)", bare, nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, "", false},
		{"two pods started: which answered is unknown", bare, nil, []platform.StartedInstance{start, other}, platform.Cold{OnPath: true}, why, false},
		{"no pod started", bare, nil, nil, platform.Cold{OnPath: true}, why, false},
		{"an on-path pod started before the send", bare, nil, []platform.StartedInstance{early}, platform.Cold{OnPath: true}, why, false},
		{"a pod seen before", bare, map[string]bool{"pod-a": true}, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, why, false},
		{"a failed reply", reply{sent: sent, status: 502}, nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, why, false},
		{"a start with no name", bare, nil, []platform.StartedInstance{{Kind: "pod", Started: start.Started}}, platform.Cold{OnPath: true}, why, false},
	} {
		seen := c.seen
		if seen == nil {
			seen = map[string]bool{}
		}
		smp := verifyCold(1, c.r, seen, c.started, since, c.cold, c.headerless)
		if smp.Verified != c.want {
			t.Errorf("%s: verified %v, want %v (%+v)", c.name, smp.Verified, c.want, smp)
		}
		if (smp.VerifiedBy != "") != (c.headerless != "") || (c.headerless != "" && !strings.Contains(smp.VerifiedBy, c.headerless)) {
			t.Errorf("%s: verified_by %q", c.name, smp.VerifiedBy)
		}
		if c.want && (smp.ColdFlag || smp.Kind == "" || smp.Phases == nil) {
			t.Errorf("%s: a sample the function said nothing of: flag %v, kind %q, phases %+v", c.name, smp.ColdFlag, smp.Kind, smp.Phases)
		}
	}
}

// A start whose image the node pulled for it (the platform's record: the
// kubelet's Pulled event after coldstart.evict_image) is kind image-pull,
// with the pull's time; a start that found the image present is kind pod,
// with none.
func TestColdSampleCarriesThePull(t *testing.T) {
	// A specialisation's phases leave out the pool pod's own start (not on the request).
	since0 := time.Now()
	spec := verifyCold(1, reply{sent: since0.Add(time.Millisecond), status: 200, cold: true, instance: "pod-s-7", latency: time.Second, firstByte: time.Second},
		map[string]bool{}, []platform.StartedInstance{{ID: "pod-s", Kind: platform.KindSpecialisation, Started: since0.Add(-time.Hour)}}, since0, platform.Cold{OnPath: true}, "")
	if !spec.Verified || spec.Kind != platform.KindSpecialisation || spec.Phases == nil || spec.Phases.CreatedMs != nil || spec.Phases.FirstByteMs == nil {
		t.Errorf("a specialisation: %+v (phases %+v)", spec, spec.Phases)
	}
	since := time.Now()
	sent := since.Add(200 * time.Millisecond)
	r := reply{sent: sent, status: 200, cold: true, instance: "pod-a", latency: 900 * time.Millisecond}
	pulled := platform.StartedInstance{ID: "pod-a", Kind: platform.KindImagePull, Started: sent.Add(20 * time.Millisecond), Pull: 250 * time.Millisecond}
	smp := verifyCold(1, r, map[string]bool{}, []platform.StartedInstance{pulled}, since, platform.Cold{OnPath: true}, "")
	if !smp.Verified || smp.Kind != platform.KindImagePull || smp.PullMs == nil || *smp.PullMs != 250 {
		t.Errorf("a pulled start: %+v (pull %v)", smp, smp.PullMs)
	}
	present := pulled
	present.Kind, present.Pull = "pod", 0
	smp = verifyCold(1, r, map[string]bool{}, []platform.StartedInstance{present}, since, platform.Cold{OnPath: true}, "")
	if !smp.Verified || smp.Kind != "pod" || smp.PullMs != nil {
		t.Errorf("a start that found the image: %+v", smp)
	}
}

type fakeCold struct {
	err     error
	evicted []string
}

func (f *fakeCold) MakeCold(context.Context, string) (platform.Cold, error) {
	return platform.Cold{How: "scaled to 0", OnPath: true}, f.err
}
func (f *fakeCold) StartedSince(context.Context, string, time.Time) ([]platform.StartedInstance, error) {
	return nil, nil
}
func (f *fakeCold) EvictImage(_ context.Context, fn string) (string, error) {
	f.evicted = append(f.evicted, fn)
	return "img removed", nil
}

// With coldstart.evict_image the image goes after the platform made the call cold, and the
// record says both; a failed MakeCold evicts nothing.
func TestMakeColdThenEvict(t *testing.T) {
	f := &fakeCold{}
	how, err := makeCold(context.Background(), f, f, "hello-go")
	if err != nil || how.How != "scaled to 0; img removed" || !how.OnPath || len(f.evicted) != 1 {
		t.Fatalf("%+v %v, evicted %v", how, err, f.evicted)
	}
	if how, err = makeCold(context.Background(), f, nil, "hello-go"); err != nil || how.How != "scaled to 0" || len(f.evicted) != 1 {
		t.Fatalf("without an evicter: %+v %v, evicted %v", how, err, f.evicted)
	}
	f.err = errors.New("gateway down")
	if _, err = makeCold(context.Background(), f, f, "hello-go"); err == nil || err.Error() != "make cold: gateway down" || len(f.evicted) != 1 {
		t.Fatalf("a failed MakeCold: %v, evicted %v", err, f.evicted)
	}
}

// coldPlatform is a platform whose function is made cold on demand and whose record starts the instance
// the cold call meets (pod-1).
type coldPlatform struct{ fakeCold }

func (coldPlatform) Name() string                                     { return "fake" }
func (coldPlatform) Deploy(context.Context, platform.Function) error  { return nil }
func (coldPlatform) Scale(context.Context, string, int) error         { return nil }
func (coldPlatform) Endpoint(context.Context, string) (string, error) { return "", nil }
func (coldPlatform) Remove(context.Context, string) error             { return nil }
func (coldPlatform) Close(context.Context) error                      { return nil }

// RefineColdKind: the instance that answered says the kind (as OpenWhisk's pods do).
func (coldPlatform) RefineColdKind(kind, instance string) string { return kind + " in " + instance }
func (coldPlatform) StartedSince(context.Context, string, time.Time) ([]platform.StartedInstance, error) {
	now := time.Now()
	return []platform.StartedInstance{{ID: "pod-1", Kind: "container", Accepted: now, Running: now}}, nil
}

// A warm call answered by a new instance (the function says cold: OpenWhisk's invoker starts another container
// while the last one still collects its logs) is no warm call: it stays out of warm_ms, counted in warm_cold
// with its latency, and the cell says so. Here the cold call meets pod-1, the first warm call a new pod-2,
// the next two the warm pods.
func TestWarmCallsAnsweredByANewInstanceAreNotWarm(t *testing.T) {
	replies := []struct{ instance, cold string }{{"pod-1", "1"}, {"pod-2", "1"}, {"pod-1", "0"}, {"pod-2", "0"}}
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		r := replies[min(n, len(replies)-1)]
		n++
		w.Header().Set("X-Fb-Instance", r.instance)
		w.Header().Set("X-Fb-Cold", r.cold)
		if r.cold == "1" {
			time.Sleep(20 * time.Millisecond)
		}
		_, _ = w.Write([]byte("pong"))
	}))
	defer srv.Close()
	dir, err := results.Create(t.TempDir(), "cold", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c := &Cell{Plan: plan.Cell{ID: "f/cold/r=1", Function: "f", Kind: "coldstart"}, Platform: &coldPlatform{}, Dir: dir,
		Functions: []Function{{Name: "f", Target: load.Target{Method: http.MethodGet, URL: srv.URL}}}}
	out, err := coldStart{cfg: spec.ColdStartSpec{Iterations: 1, Warm: 3}}.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	cr := out.Cold
	if cr.Verified != 1 || cr.WarmMs.Count != 2 || cr.WarmCold != 1 || cr.WarmColdMs == nil || cr.WarmColdMs.Count != 1 || cr.WarmColdMs.Mean < 20 || cr.WarmMs.Max >= 20 {
		t.Errorf("verified %d, warm %+v, warm_cold %d %+v", cr.Verified, cr.WarmMs, cr.WarmCold, cr.WarmColdMs)
	}
	if cr.Kinds["container in pod-1"] != 1 {
		t.Errorf("kinds %v: the platform's refinement from the instance that answered is not there", cr.Kinds)
	}
	if out.Requests.Total != 4 || !strings.Contains(strings.Join(out.Warnings, "\n"), "1 of 3 warm calls were answered by a new instance") {
		t.Errorf("requests %+v, warnings %q", out.Requests, out.Warnings)
	}
}
