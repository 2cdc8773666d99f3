package fbnuclio

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/workloads/runtime/go/fbrt"
	nuclio "github.com/nuclio/nuclio-sdk-go"
)

// event is an HTTP event as Nuclio's trigger hands it: the path without the
// query, the query's arguments as fields.
type event struct {
	nuclio.MemoryEvent
	fields map[string]interface{}
}

func (e *event) GetFields() map[string]interface{} { return e.fields }

// echo answers what it was given, and fails on ?fail.
func echo(r *http.Request, body []byte) (fbrt.Response, error) {
	if r.URL.Query().Has("fail") {
		return fbrt.Response{}, errors.New("asked to fail")
	}
	h := http.Header{}
	h.Set("Content-Type", "text/plain")
	h.Set("X-Seen", r.Method+" "+r.URL.Path+" q="+r.URL.Query().Get("n")+" h="+r.Header.Get("X-In"))
	return fbrt.Response{Status: http.StatusAccepted, Header: h, Body: append([]byte("got "), body...)}, nil
}

func newWorker(t *testing.T) *nuclio.Context {
	t.Helper()
	ctx := &nuclio.Context{}
	if err := Init(ctx, echo); err != nil {
		t.Fatal(err)
	}
	return ctx
}

func handle(t *testing.T, ctx *nuclio.Context, ev nuclio.Event) nuclio.Response {
	t.Helper()
	out, err := Handle(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	resp, ok := out.(nuclio.Response)
	if !ok {
		t.Fatalf("Handle returned %T, want nuclio.Response", out)
	}
	return resp
}

func TestHandleGivesTheWorkloadTheRequestAndTheContractsHeaders(t *testing.T) {
	ctx := newWorker(t)
	ev := &event{MemoryEvent: nuclio.MemoryEvent{Method: "PUT", Path: "/p", Body: []byte("abc"), Headers: map[string]interface{}{"X-In": "v"}},
		fields: map[string]interface{}{"n": "7"}}
	for i, cold := range []string{"1", "0"} {
		r := handle(t, ctx, ev)
		if r.StatusCode != http.StatusAccepted || string(r.Body) != "got abc" || r.ContentType != "text/plain" {
			t.Fatalf("call %d: %d %q %q", i, r.StatusCode, r.Body, r.ContentType)
		}
		if r.Headers["X-Seen"] != "PUT /p q=7 h=v" {
			t.Errorf("the workload saw %q, want PUT /p q=7 h=v", r.Headers["X-Seen"])
		}
		if r.Headers["X-Fb-Cold"] != cold || r.Headers["X-Fb-Instance"] == "" || r.Headers["X-Fb-Handler-Begin-Ns"] == "" || r.Headers["X-Fb-Handler-End-Ns"] == "" {
			t.Errorf("call %d: headers %v, want the contract's with cold %s", i, r.Headers, cold)
		}
		if _, ok := r.Headers["Content-Type"]; ok {
			t.Errorf("Content-Type left among the headers: %v", r.Headers)
		}
	}
}

func TestHealthNeverCounts(t *testing.T) {
	ctx := newWorker(t)
	h := handle(t, ctx, &event{MemoryEvent: nuclio.MemoryEvent{Method: "GET", Path: fbrt.HealthPath}})
	if h.StatusCode != http.StatusOK || string(h.Body) != "ok" || h.Headers["X-Fb-Instance"] == "" {
		t.Fatalf("health: %d %q %v", h.StatusCode, h.Body, h.Headers)
	}
	if r := handle(t, ctx, &event{MemoryEvent: nuclio.MemoryEvent{Path: "/"}}); r.Headers["X-Fb-Cold"] != "1" {
		t.Errorf("the first request after the health call: X-Fb-Cold %v, want 1", r.Headers["X-Fb-Cold"])
	}
}

func TestTheWorkloadsErrorIs500(t *testing.T) {
	ctx := newWorker(t)
	r := handle(t, ctx, &event{MemoryEvent: nuclio.MemoryEvent{Path: "/"}, fields: map[string]interface{}{"fail": ""}})
	if r.StatusCode != http.StatusInternalServerError || r.Headers["X-Fb-Error"] != "asked to fail" || r.ContentType != "application/octet-stream" {
		t.Errorf("%d %q %v", r.StatusCode, r.ContentType, r.Headers)
	}
}

func TestEachWorkerHasItsOwnColdFlag(t *testing.T) {
	a, b := newWorker(t), newWorker(t)
	ev := &event{MemoryEvent: nuclio.MemoryEvent{Path: "/"}}
	handle(t, a, ev)
	if r := handle(t, b, ev); r.Headers["X-Fb-Cold"] != "1" {
		t.Errorf("worker b's first request: cold %v, want 1", r.Headers["X-Fb-Cold"])
	}
}

func TestAContextNotInitialised(t *testing.T) {
	_, err := Handle(&nuclio.Context{}, &event{MemoryEvent: nuclio.MemoryEvent{Path: "/"}})
	if err == nil || !strings.Contains(err.Error(), "InitContext") {
		t.Errorf("err %v, want one naming InitContext", err)
	}
	if err := Init(&nuclio.Context{}, nil); err == nil {
		t.Error("Init with no handler: no error")
	}
}
