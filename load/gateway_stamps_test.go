package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The gateway's stamps become the queueing and upstream histograms, with
// faasbench's own client and with net/http.
func TestGatewayStampsAreRecorded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set(HeaderGwArrive, "1000000")
		h.Set(HeaderGwAssigned, "1300000")   // 0.3 ms queued
		h.Set(HeaderGwUpstream, "3300000")   // 2 ms to the instance and back
		h.Set(HeaderHandlerBegin, "5000000") // the function's own clock
		h.Set(HeaderHandlerEnd, "6500000")   // 1.5 ms handler
	}))
	defer srv.Close()
	for _, netHTTP := range []bool{false, true} {
		cl := NewClient(Options{NetHTTP: netHTTP})
		res, err := Closed{Concurrency: 2, Requests: 40}.Run(context.Background(), cl, Target{Method: "GET", URL: srv.URL})
		cl.Close()
		if err != nil {
			t.Fatal(err)
		}
		if res.GwQueue == nil || res.GwQueue.Count() != 40 || res.GwUpstream.Count() != 40 {
			t.Fatalf("net/http %v: stamps not recorded: %+v %+v", netHTTP, res.GwQueue, res.GwUpstream)
		}
		if q, u := res.GwQueue.Quantile(0.5), res.GwUpstream.Quantile(0.5); q < 299_000 || q > 301_000 || u < 1_998_000 || u > 2_002_000 {
			t.Errorf("net/http %v: queue %d ns, upstream %d ns; want 0.3 ms and 2 ms", netHTTP, q, u)
		}
	}
	if q, u := gwTimes(5, 3, 9); q != -1 || u != -1 {
		t.Error("out-of-order stamps accepted")
	}
}

// Where the handler's clock is the gateway's (the local platform), the
// instance's round trip splits into the way in (assignment to handler
// start) and the way back; stamps out of order (another host's clock)
// give no split.
func TestGatewayAndHandlerStampsSplitTheInstanceTime(t *testing.T) {
	for _, c := range []struct {
		begin, end string
		setup      int64 // ns, -1: none
	}{{"1800000", "2500000", 500_000}, {"5000000", "6500000", -1}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Set(HeaderGwArrive, "1000000")
			h.Set(HeaderGwAssigned, "1300000")
			h.Set(HeaderHandlerBegin, c.begin) // 0.5 ms into the handler
			h.Set(HeaderHandlerEnd, c.end)     // 0.7 ms handler
			h.Set(HeaderGwUpstream, "3300000") // 0.8 ms back
		}))
		for _, netHTTP := range []bool{false, true} {
			cl := NewClient(Options{NetHTTP: netHTTP})
			res, err := Closed{Concurrency: 2, Requests: 30}.Run(context.Background(), cl, Target{Method: "GET", URL: srv.URL})
			cl.Close()
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.setup < 0 && res.GwSetup != nil:
				t.Errorf("net/http %v: a split from stamps out of order: %d", netHTTP, res.GwSetup.Count())
			case c.setup >= 0 && (res.GwSetup == nil || res.GwSetup.Count() != 30):
				t.Errorf("net/http %v: setup not recorded: %+v", netHTTP, res.GwSetup)
			case c.setup >= 0:
				if s := res.GwSetup.Quantile(0.5); s < c.setup-1000 || s > c.setup+1000 {
					t.Errorf("net/http %v: setup %d ns, want %d", netHTTP, s, c.setup)
				}
			}
		}
		srv.Close()
	}
}
