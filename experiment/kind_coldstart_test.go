package experiment

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
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
		platform.StartedInstance{Started: ms(-20), Scheduled: ms(40), Running: ms(1200), Ready: ms(1750)})
	want := []float64{-20, 40, 1200, 1750, 1800}
	for i, v := range ph.Values() {
		if v == nil || *v != want[i] {
			t.Errorf("%s: %v, want %v", results.PhaseNames[i], v, want[i])
		}
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
	if kind, ph := startOf(r, st, true); kind != "pod" || ph == nil || ph.ReadyMs == nil || *ph.ReadyMs < 29 {
		t.Errorf("on the path: %q %+v", kind, ph)
	}
	if kind, ph := startOf(r, st, false); kind != platform.KindFirstRequest || ph != nil {
		t.Errorf("off the path: %q %+v", kind, ph)
	}
}
