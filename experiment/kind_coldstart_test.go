package experiment

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
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
	out := runColdCell(t, srv.URL, 1)
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

// A cold-start cell names its failed calls by the load engine's classes, as the summary's schema has them: OpenWhisk's
// throttle answered warm calls 429 on the real node, which the cell once counted as "failed", a name the schema
// refuses (the seed 004 run of 2026-12-02: "additional properties 'failed' not allowed").
func TestColdStartFailuresAreNamedByTheirClass(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n++
		switch n {
		case 1:
			w.Header().Set("X-Fb-Instance", "pod-1")
			w.Header().Set("X-Fb-Cold", "1")
		case 2:
			w.WriteHeader(http.StatusTooManyRequests)
		case 3:
			w.WriteHeader(http.StatusAccepted) // OpenWhisk's "not yet ready"
		default:
			w.WriteHeader(http.StatusBadGateway)
		}
		_, _ = w.Write([]byte("pong"))
	}))
	defer srv.Close()
	out := runColdCell(t, srv.URL, 1)
	want := map[string]int64{"http-429": 1, "not-ready": 1, "http-502": 1}
	if !reflect.DeepEqual(out.Errors, want) || out.Requests.Failed != 3 || out.Requests.Total != 4 {
		t.Errorf("errors %v, requests %+v; want %v, 3 of 4 failed", out.Errors, out.Requests, want)
	}
	for k := range out.Errors {
		if _, ok := load.ParseClass(k); !ok {
			t.Errorf("error %q is not one of the load engine's classes", k)
		}
	}
	if got := failure(errors.New("dial tcp: connection refused"), 0); got != load.ClassOfError(errors.New("dial tcp: connection refused")).String() {
		t.Errorf("a transport error's class %q", got)
	}
}

// A cold call the platform refused (OpenWhisk's throttle, 429) is a failed call of its class, not a cold start that
// failed to verify, and no warm call follows it: the seed 004 run on real OpenWhisk counted such calls neither
// failed nor succeeded (115 of its 120 calls in a cell).
func TestARefusedColdCallIsAFailure(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n++
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	out := runColdCell(t, srv.URL, 2)
	if n != 2 || out.Requests.Total != 2 || out.Requests.Failed != 2 || out.Errors["http-429"] != 2 || out.Cold.Verified != 0 || out.Cold.NotVerified != 0 {
		t.Errorf("calls %d, requests %+v, errors %v, verified %d, not verified %d; want 2 calls, both failed 429, none a cold start",
			n, out.Requests, out.Errors, out.Cold.Verified, out.Cold.NotVerified)
	}
}

// runColdCell runs a cold-start cell of iterations cold calls, 3 warm calls each, against url.
func runColdCell(t *testing.T, url string, iterations int) *results.Cell {
	t.Helper()
	dir, err := results.Create(t.TempDir(), "cold", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c := &Cell{Plan: plan.Cell{ID: "f/cold/r=1", Function: "f", Kind: "coldstart"}, Platform: &coldPlatform{}, Dir: dir,
		Functions: []Function{{Name: "f", Target: load.Target{Method: http.MethodGet, URL: url}}}}
	out, err := coldStart{cfg: spec.ColdStartSpec{Iterations: iterations, Warm: 3}}.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
