package experiment

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/faasbench/faasbench/spec"
	"github.com/faasbench/faasbench/workloads"
)

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// Validators returns the response checks of a workload's requests: a
// response that fails one is counted as a response-validation error, not
// a success. The workload's exact expected body holds only for its default
// request: a function whose request path is overridden is checked against
// its request.expect, if any; format checks (PNG, JSON, reversal) always hold.
func Validators(w *workloads.Workload, req spec.RequestSpec) (func([]byte) error, func(req, resp []byte) error) {
	var checks []func([]byte) error
	want := w.Expect.Body
	if req.Path != "" || req.PayloadSize != 0 || req.PayloadFile != "" {
		want = ""
	}
	if req.Expect != "" {
		want = req.Expect
	}
	if want != "" {
		checks = append(checks, func(b []byte) error {
			if string(b) != want {
				return fmt.Errorf("body %q, want %q", truncate(b), want)
			}
			return nil
		})
	}
	if w.Expect.PNG {
		checks = append(checks, func(b []byte) error {
			if !bytes.HasPrefix(b, pngSignature) {
				return fmt.Errorf("body is not a PNG (starts %q)", truncate(b))
			}
			return nil
		})
	}
	if w.Expect.JSON {
		checks = append(checks, func(b []byte) error {
			if !json.Valid(b) {
				return fmt.Errorf("body is not JSON (starts %q)", truncate(b))
			}
			return nil
		})
	}
	var validate func([]byte) error
	switch len(checks) {
	case 0:
	case 1:
		validate = checks[0]
	default:
		validate = func(b []byte) error {
			for _, c := range checks {
				if err := c(b); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if !w.Expect.Reversed {
		return validate, nil
	}
	return validate, func(req, resp []byte) error {
		if len(req) != len(resp) {
			return fmt.Errorf("%d bytes back for %d", len(resp), len(req))
		}
		for i := range req {
			if resp[len(resp)-1-i] != req[i] {
				return fmt.Errorf("byte %d not reversed", i)
			}
		}
		if validate != nil {
			return validate(resp)
		}
		return nil
	}
}

func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
