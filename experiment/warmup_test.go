package experiment

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/spec"
)

// fakeWarm is a load whose n-th second has the throughput and median that
// level(n) gives; it counts the seconds asked.
func fakeWarm(level func(n int) float64, asked *[]time.Duration) func(time.Duration) (*load.Result, error) {
	return func(d time.Duration) (*load.Result, error) {
		*asked = append(*asked, d)
		v := level(len(*asked))
		h := hist.New()
		for range 100 {
			h.Record(int64(1e9 / v))
		}
		r := &load.Result{Recorder: load.NewRecorder(time.Second), Elapsed: time.Second}
		r.Counts[load.ClassOK] = int64(v)
		r.Latency[load.ClassOK] = h
		return r, nil
	}
}

// The adaptive warm-up runs the fixed part, then seconds until the steady
// test is satisfied; a load that never settles stops at warmup_max and says
// so; without warmup_max the warm-up is the fixed one alone.
func TestWarmUpUntilSteady(t *testing.T) {
	ls := spec.LoadSpec{Warmup: spec.Duration(200 * time.Millisecond), WarmupMax: spec.Duration(time.Minute)}
	var asked []time.Duration
	// The first 4 one-second steps slow (after the fixed 200 ms), then steady with a little noise.
	w, err := warmUp(context.Background(), ls, fakeWarm(func(n int) float64 {
		if n <= 5 {
			return 300
		}
		return []float64{1000, 1010, 995, 1005, 990, 1002}[n%6]
	}, &asked))
	if err != nil || w == nil || !w.Steady {
		t.Fatalf("warm-up %+v %v", w, err)
	}
	if asked[0] != 200*time.Millisecond || len(asked) < 1+4+6 || len(asked) > 1+4+6+3 {
		t.Errorf("asked %v: want the fixed 200 ms, then about 4 slow and %d steady seconds", asked, 6)
	}
	asked = nil
	ls.WarmupMax = spec.Duration(50 * time.Millisecond) // spent by the fixed part: no adaptive second
	if w, _ := warmUp(context.Background(), ls, fakeWarm(func(int) float64 { return 100 }, &asked)); w != nil || len(asked) != 1 {
		t.Errorf("fixed warm-up: %+v, asked %v", w, asked)
	}
	asked = nil
	ls = spec.LoadSpec{WarmupMax: spec.Duration(8 * time.Millisecond)}
	start := time.Now()
	w, _ = warmUp(context.Background(), ls, func(d time.Duration) (*load.Result, error) {
		time.Sleep(time.Millisecond) // each "second" takes a millisecond here
		return fakeWarm(func(n int) float64 { return 100 * float64(n) }, &asked)(d)
	})
	if w == nil || w.Steady || !strings.Contains(w.Reason, "not steady after warmup_max") || time.Since(start) > time.Second {
		t.Errorf("drifting load: %+v", w)
	}
}
