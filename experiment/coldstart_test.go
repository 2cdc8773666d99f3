package experiment

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/faasbench/faasbench/load"
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
	cs := &cellSetup{target: load.Target{Method: "GET", URL: srv.URL + "/",
		Header: http.Header{"Host": {"hello.ns.example.com"}, "X-Token": {"t1"}}}}
	r, err := call(context.Background(), nil, cs)
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
