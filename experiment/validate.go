package experiment

import (
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/spec"
	"github.com/faasbench/faasbench/workloads"
)

// Checks returns the response checks of a workload's requests, as data. The
// workload's exact expected body holds only for its default request: a
// function whose request path is overridden is checked against its
// request.expect, if any; format checks (PNG, JSON, reversal) always hold.
func Checks(w *workloads.Workload, req spec.RequestSpec) load.Checks {
	want := w.Expect.Body
	if req.Path != "" || req.PayloadSize != 0 || req.PayloadFile != "" {
		want = ""
	}
	if req.Expect != "" {
		want = req.Expect
	}
	return load.Checks{Body: want, PNG: w.Expect.PNG, JSON: w.Expect.JSON, Reversed: w.Expect.Reversed}
}

// Validators returns the checks of Checks as functions (load.Checks.Funcs):
// a response that fails one is counted as a response-validation error.
func Validators(w *workloads.Workload, req spec.RequestSpec) (func([]byte) error, func(req, resp []byte) error) {
	return Checks(w, req).Funcs()
}
