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
