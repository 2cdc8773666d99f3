package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestLiveCountsWhatTheRunCounts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("fail") != "" {
			w.WriteHeader(500)
		}
	}))
	defer srv.Close()
	cl := NewClient(Options{})
	defer cl.Close()
	var live Live
	res, err := Closed{Concurrency: 3, Requests: 90, Live: &live}.Run(context.Background(), cl, Target{Method: "GET", URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	done, failed := live.Snapshot()
	if done != res.Total() || done != 90 || failed != 0 {
		t.Errorf("live %d done %d failed, result %d", done, failed, res.Total())
	}
	var live2 Live
	if _, err := (Closed{Concurrency: 2, Requests: 10, Live: &live2}).Run(context.Background(), cl, Target{Method: "GET", URL: srv.URL + "?fail=1"}); err != nil {
		t.Fatal(err)
	}
	if done, failed := live2.Snapshot(); done != 10 || failed != 10 {
		t.Errorf("failing server: live %d done, %d failed; want 10 and 10", done, failed)
	}
	var none *Live
	if d, f := none.Snapshot(); d != 0 || f != 0 {
		t.Error("nil Live counted")
	}
}

// A Live read gives the run's own counts by class and, bucket by bucket,
// the latencies of its successful requests as its windows hold them.
func TestLiveViewIsTheRunsCountsAndBuckets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("n") == "3" {
			w.WriteHeader(503)
		}
	}))
	defer srv.Close()
	cl := NewClient(Options{})
	defer cl.Close()
	var live Live
	res, err := Closed{Concurrency: 2, Requests: 60, Live: &live}.Run(context.Background(), cl, Target{Method: "GET", URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (Closed{Concurrency: 1, Requests: 5, Live: &live}).Run(context.Background(), cl, Target{Method: "GET", URL: srv.URL + "?n=3"}); err != nil {
		t.Fatal(err)
	}
	var v LiveView
	live.Read(&v)
	if v.Counts[ClassOK] != 60 || v.Counts[Class503] != 5 {
		t.Fatalf("counts %v", v.Counts)
	}
	if done, failed := live.Snapshot(); done != 65 || failed != 5 {
		t.Errorf("done %d failed %d", done, failed)
	}
	var fromWindows [windowBuckets]uint64
	for i := range res.Windows {
		for b, n := range res.Windows[i].buckets {
			fromWindows[b] += uint64(n)
		}
	}
	if v.OK != fromWindows {
		t.Errorf("live buckets differ from the windows' (all ok): %v vs %v", v.OK, fromWindows)
	}
	if WindowBucketUpperNs(0) != bucketUpperNs(0) || WindowBuckets != windowBuckets {
		t.Error("exported geometry")
	}
	var none *Live
	none.Read(&v)
	if v.Counts[ClassOK] != 0 {
		t.Error("nil Live read counts")
	}
}
