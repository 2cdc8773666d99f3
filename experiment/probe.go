package experiment

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/results"
)

// probeTimeout bounds a probe when the spec's load.timeout is longer (a
// function that takes a minute to answer one request is found without it).
const probeTimeout = 2 * time.Minute

// maxProbeBody bounds what a probe reads of a reply.
const maxProbeBody = 64 << 20

// ColdFirst is an experiment kind whose first request to a function must
// find it as deployed (cold, or at its initial scale): the run does not
// probe such a function before the kind's first cell.
type ColdFirst interface{ ColdFirst() bool }

// ProbeRequest is a kind whose cells send another request than the
// function's own (a batch of files): the probe sends the one it gives.
type ProbeRequest interface {
	ProbeRequest(c *Cell, t load.Target) (load.Target, error)
}

// Probe sends the function's request once, before any cell measures it,
// and checks that the function itself answered: a success status, no
// function error, the instance header of the function contract, and the
// workload's response checks. The error says what came back instead, in the
// platform's own words (its status line, its error header, the first bytes
// of its body); the record says what the probe saw either way.
func Probe(ctx context.Context, fn Function) (results.Probe, error) {
	p := results.Probe{Function: fn.Name}
	t := fn.Target
	timeout := fn.Options.Timeout
	if timeout <= 0 || timeout > probeTimeout {
		timeout = probeTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, t.Method, t.URL, bytes.NewReader(t.Body))
	if err != nil {
		return p, fmt.Errorf("probe %s: %w", fn.Name, err)
	}
	for k, vs := range t.Header {
		if http.CanonicalHeaderKey(k) == "Host" {
			req.Host = vs[0]
			continue
		}
		req.Header[k] = append([]string(nil), vs...)
	}
	cl := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	start := time.Now()
	resp, err := cl.Do(req)
	if err != nil {
		return p, fmt.Errorf("function %s did not answer its probe (one request before the first cell, %s %s): %w", fn.Name, t.Method, t.URL, err)
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxProbeBody))
	resp.Body.Close()
	p.LatencyMs = float64(time.Since(start)) / 1e6
	p.Status = resp.StatusCode
	p.Instance = resp.Header.Get(load.HeaderInstance)
	// What an error quotes of the body, with the run's secrets masked before excerpt cuts it.
	shown := body
	if fn.Options.Mask != nil {
		shown = fn.Options.Mask(body)
	}
	bad := func(why string) (results.Probe, error) {
		p.Error = why
		return p, fmt.Errorf("function %s did not give its own answer to its probe (one request before the first cell, %s %s): %s", fn.Name, t.Method, t.URL, why)
	}
	switch {
	case rerr != nil:
		return bad(fmt.Sprintf("HTTP %s, and reading the body: %v", resp.Status, rerr))
	case load.ClassOfStatus(resp.StatusCode) != load.ClassOK:
		why := "HTTP " + resp.Status
		if pe := resp.Header.Get(load.HeaderPlatformError); pe != "" {
			why += ", the platform says " + pe
		}
		return bad(why + ": " + excerpt(shown))
	case resp.Header.Get(load.HeaderError) != "":
		return bad(fmt.Sprintf("the function says it failed (%s: %s): %s", load.HeaderError, resp.Header.Get(load.HeaderError), excerpt(shown)))
	case p.Instance == "" && fn.Headerless == "":
		return bad(fmt.Sprintf("HTTP %s without the function contract's %s header: something other than the function answered (%s)", resp.Status, load.HeaderInstance, excerpt(shown)))
	}
	v, vp := fn.Options.Checks.FuncsMasked(fn.Options.Mask)
	if p.Instance == "" && v == nil && vp == nil {
		// Without the header, only the workload's check tells the function's reply from another's.
		return bad(fmt.Sprintf("HTTP %s without %s (%s), and the workload has no response check to tell the function's reply from another's (%s)", resp.Status, load.HeaderInstance, fn.Headerless, excerpt(shown)))
	}
	if v != nil {
		if err := v(body); err != nil {
			return bad("the reply fails the workload's check: " + err.Error())
		}
	}
	if vp != nil {
		if err := vp(t.Body, body); err != nil {
			return bad("the reply fails the workload's check: " + err.Error())
		}
	}
	return p, nil
}

// excerpt is the start of a reply's body as text, for an error.
func excerpt(b []byte) string {
	const n = 300
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "an empty body"
	}
	if len(s) > n {
		s = s[:n]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	if !utf8.ValidString(s) {
		return fmt.Sprintf("%d bytes of binary body", len(b))
	}
	return fmt.Sprintf("%q", s)
}
