package load

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Checks are a response's checks, as data: what Options.Validate and
// Options.ValidatePair are built from (Funcs), and what a coordinator sends
// a generator elsewhere so that it checks the same.
type Checks struct {
	// Body, when set, is the exact body a 2xx response must have.
	Body string `json:"body,omitempty"`
	// PNG and JSON: the body must be a PNG image, JSON.
	PNG  bool `json:"png,omitempty"`
	JSON bool `json:"json,omitempty"`
	// Reversed: the body is the request's bytes reversed.
	Reversed bool `json:"reversed,omitempty"`
}

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// Funcs builds the checks (nil when there is nothing to check): a response
// that fails one is counted as a validation error, not a success.
func (c Checks) Funcs() (func([]byte) error, func(req, resp []byte) error) {
	return c.FuncsMasked(nil)
}

// FuncsMasked is Funcs whose errors quote a body only after mask (when set)
// removed its secrets: a cut made before masking would leave the head of a
// secret that straddles it, which no mask after it recognises.
func (c Checks) FuncsMasked(mask func([]byte) []byte) (func([]byte) error, func(req, resp []byte) error) {
	quote := func(b []byte) string {
		if mask != nil {
			b = mask(b)
		}
		return truncate(b)
	}
	var checks []func([]byte) error
	if want := c.Body; want != "" {
		checks = append(checks, func(b []byte) error {
			if string(b) != want {
				return fmt.Errorf("body %q, want %q", quote(b), want)
			}
			return nil
		})
	}
	if c.PNG {
		checks = append(checks, func(b []byte) error {
			if !bytes.HasPrefix(b, pngSignature) {
				return fmt.Errorf("body is not a PNG (starts %q)", quote(b))
			}
			return nil
		})
	}
	if c.JSON {
		checks = append(checks, func(b []byte) error {
			if !json.Valid(b) {
				return fmt.Errorf("body is not JSON (starts %q)", quote(b))
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
	if !c.Reversed {
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
