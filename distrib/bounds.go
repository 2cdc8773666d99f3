package distrib

import (
	"fmt"
	"time"

	"github.com/faasbench/faasbench/spec"
)

// MaxStartAhead bounds how far ahead a job's common start may be.
const MaxStartAhead = 10 * time.Minute

// bounds holds a job to the spec's bounds table (spec/validate.go), whoever
// holds the token: a job is a share of a spec's cell, so a job no spec
// could make is refused before anything starts, naming the field; now is
// the agent's clock. Without it `concurrency: 2e7` from a token holder
// started 20 million workers and killed the agent (issue 60).
func (j *Job) bounds(now time.Time) error {
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("job: %s %v: want %s", field, v, want)
	}
	if ahead := time.Duration(j.StartAtNs - now.UnixNano()); ahead > MaxStartAhead {
		return bad("start_at_ns", time.Unix(0, j.StartAtNs).UTC().Format(time.RFC3339), fmt.Sprintf("at most %v ahead of the agent's clock", MaxStartAhead))
	}
	if t := time.Duration(j.Client.TimeoutNs); t < 0 || t > spec.MaxTimeout {
		return bad("client.timeout_ns", t, fmt.Sprintf("0..%v", spec.MaxTimeout))
	}
	if n := j.Client.MaxConns; n < 0 || n > spec.MaxInFlight {
		return bad("client.max_conns", n, fmt.Sprintf("0..%d", spec.MaxInFlight))
	}
	if len(j.Target.Body) > spec.MaxPayloadSize {
		return bad("target.body", fmt.Sprintf("of %d bytes", len(j.Target.Body)), fmt.Sprintf("at most %d bytes", spec.MaxPayloadSize))
	}
	day := spec.MaxCellDuration
	switch {
	case j.Open != nil:
		o := j.Open
		if o.MaxInFlight < 0 || o.MaxInFlight > spec.MaxInFlight {
			return bad("open.max_in_flight", o.MaxInFlight, fmt.Sprintf("0..%d", spec.MaxInFlight))
		}
		for _, d := range []struct {
			field string
			ns    int64
		}{{"open.deadline_ns", o.DeadlineNs}, {"open.expected_ns", o.ExpectedNs}, {"open.max_lag_ns", o.MaxLagNs}, {"open.resolution_ns", o.ResolutionNs}, {"open.grace_ns", max(o.GraceNs, 0)}} {
			if d.ns < 0 || time.Duration(d.ns) > day {
				return bad(d.field, time.Duration(d.ns), fmt.Sprintf("0..%v", day))
			}
		}
	case j.Closed != nil:
		c := j.Closed
		if c.Concurrency < 0 || c.Concurrency > spec.MaxConcurrency {
			return bad("closed.concurrency", c.Concurrency, fmt.Sprintf("0..%d", spec.MaxConcurrency))
		}
		if c.Workers != nil && (c.Workers.Max < 0 || c.Workers.Max > spec.MaxConcurrency) {
			return bad("closed.workers.max", c.Workers.Max, fmt.Sprintf("0..%d", spec.MaxConcurrency))
		}
		if d := time.Duration(c.DurationNs); d < 0 || d > day {
			return bad("closed.duration_ns", d, fmt.Sprintf("0..%v", day))
		}
		if g := time.Duration(c.GraceNs); g > day {
			return bad("closed.grace_ns", g, fmt.Sprintf("at most %v", day))
		}
		if c.Requests < 0 || c.Requests > spec.MaxRequests {
			return bad("closed.requests", c.Requests, fmt.Sprintf("0..%d", int64(spec.MaxRequests)))
		}
	case j.Batch != nil:
		b := j.Batch
		if b.MaxInFlight < 0 || b.MaxInFlight > spec.MaxInFlight {
			return bad("batch.max_in_flight", b.MaxInFlight, fmt.Sprintf("0..%d", spec.MaxInFlight))
		}
		if b.MaxAttempts < 0 || b.MaxAttempts > 100 {
			return bad("batch.max_attempts", b.MaxAttempts, "0..100")
		}
		if d := time.Duration(b.BackoffNs); d < 0 || d > time.Hour {
			return bad("batch.backoff_ns", d, "0..1h")
		}
	}
	return nil
}
