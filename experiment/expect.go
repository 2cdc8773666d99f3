package experiment

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// noSuccessWarning is CellFigures' warning for a cell whose requests all
// failed; a cell whose declared status held is valid without a success.
const noSuccessWarning = "no request succeeded"

// Expect judges a cell against the spec's expectation and records the
// verdict in c.Expect: at least one success and at most failed_max of the
// requests failed, or, where expect.cells declares a status, every request
// answered with it (such a cell is then valid without a success). A
// capacity search's steps are judged by their SLO instead (only the
// validation step is held to the expectation), and a coldrate curve's
// steps by whether they were sustained: past its knee a platform fails
// cold starts by design (the probe before the first step showed the
// function answers).
func Expect(e spec.ExpectSpec, c *results.Cell) {
	if c.Capacity != nil && c.Capacity.Phase != "validate" || c.ColdRate != nil {
		return
	}
	rule := e.RuleFor(c.Function, func(name string) (string, bool) { return cellValue(c, name) })
	x := &results.Expectation{Rule: rule.String(), Held: true}
	c.Expect = x
	total, failed, what := c.Requests.Total, c.Requests.Failed, "requests"
	if b := c.Batch; b != nil && b.Items > 0 {
		// A batch retries: its outcome is its items', not its attempts'.
		total, failed, what = int64(b.Items), int64(b.Failed+b.NotDone), "items"
	}
	if rule.Status != 0 {
		got := c.Statuses[strconv.Itoa(rule.Status)]
		if total == 0 || got != total {
			x.Held = false
			x.Why = fmt.Sprintf("%d of %d requests answered %d; %s", got, c.Requests.Total, rule.Status, outcomes(c))
			return
		}
		if !c.Valid && onlyInvalidForNoSuccess(c.Warnings) {
			c.Valid = true
			c.Warnings = append(c.Warnings, fmt.Sprintf("every request answered %d as the spec declares (expect.cells): valid without a success", rule.Status))
		}
		return
	}
	switch {
	case total == 0:
		x.Held, x.Why = false, "no request completed"
	case c.Requests.Succeeded == 0:
		x.Held, x.Why = false, "no request succeeded: "+outcomes(c)
	case float64(failed) > rule.FailedMax*float64(total):
		x.Held = false
		x.Why = fmt.Sprintf("%d of %d %s failed (%.3g %%), over the %.4g %% allowed: %s", failed, total, what,
			100*float64(failed)/float64(total), 100*rule.FailedMax, outcomes(c))
	}
}

// cellValue is a cell's grid value by name: its params, then its load level.
func cellValue(c *results.Cell, name string) (string, bool) {
	if v, ok := c.Params.Get(name); ok {
		return v, true
	}
	switch name {
	case "concurrency":
		return strconv.Itoa(c.Concurrency), c.Concurrency > 0
	case "rate":
		return strconv.FormatFloat(c.Rate, 'g', -1, 64), c.Rate > 0
	case "replicas":
		return strconv.Itoa(c.Replicas), true
	}
	return "", false
}

// outcomes says what a cell's requests ended as: the error classes and the
// HTTP statuses, most frequent first.
func outcomes(c *results.Cell) string {
	type n struct {
		k string
		v int64
	}
	list := func(m map[string]int64, prefix string) []string {
		var xs []n
		for k, v := range m {
			if v > 0 {
				xs = append(xs, n{k, v})
			}
		}
		sort.Slice(xs, func(i, j int) bool { return xs[i].v > xs[j].v || xs[i].v == xs[j].v && xs[i].k < xs[j].k })
		out := make([]string, 0, len(xs))
		for _, x := range xs {
			out = append(out, fmt.Sprintf("%s%s ×%d", prefix, x.k, x.v))
		}
		return out
	}
	parts := list(c.Errors, "")
	if s := list(c.Statuses, "HTTP "); len(s) > 0 {
		parts = append(parts, "statuses "+strings.Join(s, ", "))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("%d succeeded, %d failed", c.Requests.Succeeded, c.Requests.Failed)
	}
	return strings.Join(parts, "; ")
}

// onlyInvalidForNoSuccess reports whether the only reason a cell is invalid
// is that no request succeeded.
func onlyInvalidForNoSuccess(ws []string) bool {
	found := false
	for _, w := range ws {
		switch {
		case w == noSuccessWarning:
			found = true
		case strings.HasPrefix(w, "invalid: "), strings.HasPrefix(w, "interrupted"), w == "no request completed":
			return false
		}
	}
	return found
}
