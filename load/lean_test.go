package load

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A lean open loop with one shared recorder counts what a default one
// counts, and keeps the latency and lag histograms only: no service,
// handler or overhead ones, though the function reports its handler's time.
func TestOpenLeanKeepsLatencyAndLagOnly(t *testing.T) {
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) {
		now := time.Now().UnixNano()
		w.Header().Set(HeaderHandlerBegin, strconv.FormatInt(now-1000, 10))
		w.Header().Set(HeaderHandlerEnd, strconv.FormatInt(now, 10))
		w.Write([]byte("ok"))
	})
	cl := NewClient(Options{})
	defer cl.Close()
	sched := Limit{S: Constant{Rate: 1000}, Duration: 200 * time.Millisecond}
	for _, c := range []struct {
		name string
		o    Open
		lean bool
	}{
		{"default", Open{Schedule: sched, MaxInFlight: 8}, false},
		{"lean, one shard", Open{Schedule: sched, MaxInFlight: 8, Shards: 1, Lean: true}, true},
	} {
		res, err := c.o.Run(context.Background(), cl, Target{URL: s.URL})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total() != 200 || res.Succeeded() != 200 {
			t.Fatalf("%s: total %d, ok %d, want 200", c.name, res.Total(), res.Succeeded())
		}
		if n := res.Latency[ClassOK].Count(); n != 200 || res.LagHist().Count() != 200 {
			t.Errorf("%s: latency n %d, lag n %d, want 200", c.name, n, res.LagHist().Count())
		}
		kept := res.Service[ClassOK] != nil || res.Handler != nil || res.Overhead != nil
		if kept == c.lean {
			t.Errorf("%s: service, handler or overhead histograms kept: %v", c.name, kept)
		}
	}
}

// Shards outside 0..4 is refused, naming the field.
func TestOpenShardsValidated(t *testing.T) {
	for _, n := range []int{-1, recShards + 1} {
		err := Open{Schedule: Constant{Rate: 1}, Shards: n}.Validate()
		if err == nil || !strings.Contains(err.Error(), "shards") {
			t.Errorf("shards %d: %v", n, err)
		}
	}
	if err := (Open{Schedule: Constant{Rate: 1}, Shards: 1}).Validate(); err != nil {
		t.Error(err)
	}
}
