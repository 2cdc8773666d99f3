// Package fbnuclio runs a Go workload's handler inside Nuclio's processor, as
// Nuclio runs a Go function: a plugin (go build -buildmode=plugin) whose
// Handler the processor's Go runtime calls for each event
// (pkg/processor/runtime/golang of Nuclio 1.14.1). No server of the
// workload's own, no extra hop.
//
// The plugin's entry (plugin/nuclio_plugin.go, package main beside the
// workload's main.go) hands the workload's handle to Init from InitContext,
// which Nuclio calls once per worker; Handle answers each event with the
// function contract's headers (docs/function-contract.md). The cold flag is
// per worker (each of the HTTP trigger's numWorkers has its own context),
// the instance is the pod's host name and the process id, as with the
// Python and Node.js runtimes.
package fbnuclio

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/faasbench/faasbench/workloads/runtime/go/fbrt"
	nuclio "github.com/nuclio/nuclio-sdk-go"
)

// worker is what a worker's context carries (Context.UserData).
type worker struct {
	handle   fbrt.Handler
	instance *fbrt.Instance
}

// Init readies a worker's context for h.
func Init(ctx *nuclio.Context, h fbrt.Handler) error {
	if ctx == nil {
		return errors.New("fbnuclio: no context")
	}
	if h == nil {
		return errors.New("fbnuclio: no handler")
	}
	ctx.UserData = &worker{handle: h, instance: fbrt.NewInstance()}
	return nil
}

// Request is the event as the workload's handler sees an HTTP request: the
// method, the path with the query rebuilt from the event's fields (Nuclio's
// HTTP trigger hands the path without its query, and the query's arguments
// as fields), the headers and the body.
func Request(ev nuclio.Event) (*http.Request, error) {
	method := ev.GetMethod()
	if method == "" {
		method = http.MethodPost
	}
	path := ev.GetPath()
	if path == "" {
		path = "/"
	}
	u := &url.URL{Path: path}
	if fields := ev.GetFields(); len(fields) > 0 {
		q := make(url.Values, len(fields))
		for k, v := range fields {
			q.Set(k, fmt.Sprint(v))
		}
		u.RawQuery = q.Encode()
	}
	req, err := http.NewRequest(method, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("fbnuclio: event %s %s: %w", method, path, err)
	}
	for k, v := range ev.GetHeaders() {
		req.Header.Set(k, fmt.Sprint(v))
	}
	return req, nil
}

// Handle answers one event with the workload's reply and the contract's
// headers, as a nuclio.Response (its content type taken out of the headers,
// application/octet-stream when the workload sets none). GET /_fb/health
// is answered with the instance and never counts as the first request.
func Handle(ctx *nuclio.Context, ev nuclio.Event) (interface{}, error) {
	w, ok := ctx.UserData.(*worker)
	if !ok {
		return nil, errors.New("fbnuclio: the worker's context was not initialised (InitContext)")
	}
	hd := make(http.Header, 8)
	var status int
	var body []byte
	if ev.GetPath() == fbrt.HealthPath {
		// As fbrt's server: answered, never the function's first request.
		hd.Set("Content-Type", "text/plain")
		status, body = http.StatusOK, w.instance.Health(hd)
	} else {
		req, err := Request(ev)
		if err != nil {
			return nil, err
		}
		status, body = w.instance.Call(w.handle, req, ev.GetBody(), hd)
	}
	resp := nuclio.Response{StatusCode: status, ContentType: "application/octet-stream", Headers: make(map[string]interface{}, len(hd)), Body: body}
	for k, v := range hd {
		if strings.EqualFold(k, "Content-Type") {
			resp.ContentType = strings.Join(v, ", ")
			continue
		}
		resp.Headers[k] = strings.Join(v, ", ")
	}
	return resp, nil
}
