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

// A view since an earlier one holds what came between; its quantile is the
// upper edge of the bucket that holds it.
func TestLiveViewSinceAndQuantile(t *testing.T) {
	var l Live
	var before, after LiveView
	for i := 0; i < 100; i++ {
		l.shard(i).count(ClassOK, 1_000_000, false) // 1 ms
	}
	l.Read(&before)
	for i := 0; i < 90; i++ {
		l.shard(i).count(ClassOK, 2_000_000, i == 0) // 2 ms
	}
	for i := 0; i < 10; i++ {
		l.shard(i).count(ClassOK, 50_000_000, false) // 50 ms
		l.shard(i).count(Class5xx, 0, false)
	}
	l.Read(&after)
	d := after.Since(before)
	if d.Counts[ClassOK] != 100 || d.Counts[Class5xx] != 10 || d.Cold != 1 {
		t.Fatalf("since: %d ok, %d 5xx, %d cold; want 100, 10, 1", d.Counts[ClassOK], d.Counts[Class5xx], d.Cold)
	}
	for _, c := range []struct {
		q    float64
		want int64
	}{{0.5, bucketUpperNs(windowBucket(2_000_000))}, {0.9, bucketUpperNs(windowBucket(2_000_000))}, {0.91, bucketUpperNs(windowBucket(50_000_000))}} {
		if got := d.QuantileNs(c.q); got != c.want {
			t.Errorf("q %v: %d ns, want %d", c.q, got, c.want)
		}
	}
	if got := before.QuantileNs(0.99); got != bucketUpperNs(windowBucket(1_000_000)) {
		t.Errorf("before: p99 %d", got)
	}
	if got := (LiveView{}).QuantileNs(0.5); got != 0 {
		t.Errorf("empty: %d", got)
	}
}
