package runner

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/workloads"
)

// optionsWith is fakeOptions with a server of our own behind the platform.
func optionsWith(t *testing.T, h http.Handler) Options {
	t.Helper()
	reg := platform.NewRegistry()
	if err := reg.Register("fake", func(context.Context, platform.Config) (platform.Platform, error) {
		// A function of the contract: it names its instance.
		return &fakePlatform{srv: httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Fb-Instance", "fake-1")
			h.ServeHTTP(w, r)
		}))}, nil
	}); err != nil {
		t.Fatal(err)
	}
	cat, err := workloads.Load("../workloads")
	if err != nil {
		t.Fatal(err)
	}
	return Options{Platforms: reg, Catalog: cat, ResultsDir: t.TempDir(), NoPin: true}
}

const untilSpec = `version: 1
name: until
platform: {name: fake}
functions: [{workload: hello, language: go}]
load: {concurrency: [2], duration: 400ms, warmup: 100ms}
repetitions: 2
until: {p: 50, within: WITHIN, max: 5}
`

// A server whose latency is the same in every repetition: the headline
// interval of p50 is narrow after the 2 repetitions asked, and the run
// stops there. One whose latency changes from repetition to repetition:
// repetitions are added up to the budget, and the summary says it was spent.
func TestUntilAddsRepetitionsUntilNarrowOrBudget(t *testing.T) {
	steady := runSpec(t, strings.Replace(untilSpec, "WITHIN", "0.5", 1), optionsWith(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Millisecond)
		w.Write([]byte("pong"))
	})))
	s := steady.Summary()
	if s.Until == nil || !s.Until.Met || s.Until.Repetitions != 2 || len(s.Cells) != 2 {
		t.Errorf("a steady server: until %+v, %d cells", s.Until, len(s.Cells))
	}
	// Each repetition's latency differs (the server's delay is drawn per run
	// of 100 requests): the interval across repetitions stays wide.
	var n atomic.Int64
	rng := rand.New(rand.NewPCG(1, 1))
	delays := []time.Duration{}
	for range 100 {
		delays = append(delays, time.Duration(1+rng.IntN(8))*time.Millisecond)
	}
	noisy := runSpec(t, strings.Replace(untilSpec, "WITHIN", "0.001", 1), optionsWith(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delays[(n.Add(1)/150)%int64(len(delays))])
		w.Write([]byte("pong"))
	})))
	s = noisy.Summary()
	if s.Until == nil || s.Until.Met || s.Until.Repetitions != 5 || len(s.Cells) != 5 || !strings.Contains(s.Until.Reason, "budget") {
		t.Errorf("a noisy server: until %+v, %d cells", s.Until, len(s.Cells))
	}
	for i, c := range s.Cells {
		if c.Repetition != i+1 {
			t.Errorf("cell %d is repetition %d", i, c.Repetition)
		}
	}
}
