package runner

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
)

const verdictSpec = `version: 1
name: verdict
platform: {name: fake}
functions: [{workload: payload, language: node}]
load: {concurrency: [2], duration: 300ms, warmup: 0s}
repetitions: 1
`

// runWith runs yaml against h and returns the run and Execute's error.
func runWith(t *testing.T, yaml string, h http.HandlerFunc) (*Run, error) {
	t.Helper()
	return execute(t, yaml, optionsWith(t, h))
}

func ok(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	_, _ = w.Write([]byte("ok"))
}

// A function that answers its probe with the platform's error: the run
// fails before any cell, in the platform's words, and says so in the
// manifest; nothing was measured of it.
func TestRunFailsWhenTheFunctionDoesNotAnswerItsProbe(t *testing.T) {
	r, err := runWith(t, verdictSpec, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Fb-Platform-Error", "no-instance")
		http.Error(w, "function payload-node not found in namespace fb", http.StatusBadGateway)
	})
	if err == nil || !strings.Contains(err.Error(), "HTTP 502 Bad Gateway, the platform says no-instance") ||
		!strings.Contains(err.Error(), "not found in namespace fb") {
		t.Fatalf("error %v, want the probe's failure in the platform's words", err)
	}
	if errors.Is(err, ErrNothingValid) || errors.Is(err, ErrExpectation) {
		t.Errorf("a probe's failure is a failed run (exit 1), not %v", err)
	}
	m := r.Manifest()
	if m.Status != results.StatusFailed || len(r.Summary().Cells) != 0 || len(m.Probes) != 1 || m.Probes[0].Status != 502 || m.Probes[0].Error == "" {
		t.Errorf("status %s, %d cells, probes %+v", m.Status, len(r.Summary().Cells), m.Probes)
	}
}

// Something other than the function answers 200 (an ingress's default
// page, no instance header): the probe fails and says so.
func TestRunFailsWhenSomethingElseAnswersTheProbe(t *testing.T) {
	o := optionsWith(t, http.HandlerFunc(ok))
	withPlatform(t, &o, func() platform.Platform {
		return &fakePlatform{srv: httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("<html>default backend</html>"))
		}))}
	})
	_, err := execute(t, verdictSpec, o)
	if err == nil || !strings.Contains(err.Error(), "without the function contract's X-Fb-Instance header") || !strings.Contains(err.Error(), "default backend") {
		t.Fatalf("error %v, want the probe to find no function behind the reply", err)
	}
}

// Every request after the probe fails: no cell is valid, the run ends
// failed with ErrNothingValid (exit 3), the figures kept.
func TestRunThatMeasuredNothingFails(t *testing.T) {
	var n atomic.Int64
	r, err := runWith(t, verdictSpec, func(w http.ResponseWriter, req *http.Request) {
		if n.Add(1) == 1 {
			ok(w, req)
			return
		}
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	})
	if !errors.Is(err, ErrNothingValid) || !strings.Contains(err.Error(), "no request succeeded: http-503") {
		t.Fatalf("error %v, want ErrNothingValid naming the 503s", err)
	}
	s := r.Summary()
	if r.Manifest().Status != results.StatusFailed || len(s.Cells) != 1 || s.Cells[0].Requests.Failed == 0 ||
		s.Cells[0].Expect == nil || s.Cells[0].Expect.Held || s.Cells[0].Statuses["503"] != s.Cells[0].Requests.Total {
		t.Errorf("status %s, cells %+v", r.Manifest().Status, s.Cells)
	}
}

// One request in ten fails: the cells are valid but break the default
// expectation (at most 1 % failed): the run fails with ErrExpectation
// (exit 1); a spec that allows 20 % completes.
func TestRunFailsWhenACellFailsMoreThanAllowed(t *testing.T) {
	flaky := func() http.HandlerFunc {
		var n atomic.Int64
		return func(w http.ResponseWriter, req *http.Request) {
			if n.Add(1)%10 == 0 {
				http.Error(w, "boom", http.StatusInternalServerError)
				return
			}
			ok(w, req)
		}
	}
	r, err := runWith(t, verdictSpec, flaky())
	if !errors.Is(err, ErrExpectation) || errors.Is(err, ErrNothingValid) || !strings.Contains(err.Error(), "over the 1 % allowed") {
		t.Fatalf("error %v, want ErrExpectation", err)
	}
	if c := r.Summary().Cells[0]; !c.Valid || c.Expect.Held || r.Manifest().Status != results.StatusFailed {
		t.Errorf("cell valid %v, expect %+v, status %s", c.Valid, c.Expect, r.Manifest().Status)
	}
	r, err = runWith(t, verdictSpec+"expect: {failed_max: 0.2}\n", flaky())
	if err != nil || r.Manifest().Status != results.StatusComplete || !r.Summary().Cells[0].Expect.Held {
		t.Errorf("with failed_max 0.2: %v, status %s", err, r.Manifest().Status)
	}
}

// A payload over the function's limit must be refused with 413 as the spec
// declares; such a cell is valid without a success. A platform that
// accepts it (counts a 200) breaks the expectation.
func TestDeclaredStatusMustHold(t *testing.T) {
	spec := verdictSpec + `vary: {payload_size: [10, 30000]}
expect:
  cells: [{where: {payload_size: 30000}, status: 413}]
`
	limited := func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		if len(b) > 20000 {
			http.Error(w, "too large", http.StatusRequestEntityTooLarge)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}
	r, err := runWith(t, spec, limited)
	if err != nil {
		t.Fatalf("a 413 where declared: %v", err)
	}
	for _, c := range r.Summary().Cells {
		if !c.Valid || c.Expect == nil || !c.Expect.Held {
			t.Errorf("cell %s: valid %v, expect %+v, warnings %v", c.ID, c.Valid, c.Expect, c.Warnings)
		}
	}
	_, err = runWith(t, spec, ok)
	if !errors.Is(err, ErrExpectation) || !strings.Contains(err.Error(), "answered 413") || !strings.Contains(err.Error(), "HTTP 200") {
		t.Fatalf("a 200 where 413 is declared: %v", err)
	}
}
