package distrib

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/load"
)

// A token holder's job is held to the spec's limits before anything starts
// (issue 60: `concurrency: 2e7` started 20 million workers and killed the
// agent); each refusal names its field, and nothing is sent.
func TestAgentHoldsJobsToTheSpecsLimits(t *testing.T) {
	var a arrivals
	srv := a.server(t)
	co := inProcess(t, 1, origin(t, srv.URL), nil)
	for _, c := range []struct {
		field string
		edit  func(*Job)
	}{
		{"closed.concurrency", func(j *Job) { j.Closed.Concurrency = 20_000_000 }},
		{"closed.requests", func(j *Job) { j.Closed.Requests = 1e12 }},
		{"closed.duration_ns", func(j *Job) { j.Closed.DurationNs = int64(48 * time.Hour) }},
		{"client.timeout_ns", func(j *Job) { j.Client.TimeoutNs = int64(2 * time.Hour) }},
		{"client.max_conns", func(j *Job) { j.Client.MaxConns = 1 << 30 }},
	} {
		jobs, err := NewJobs(load.Closed{Concurrency: 1, Requests: 2}, 1, load.Target{URL: srv.URL}, load.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c.edit(&jobs[0])
		out, err := co.Run(context.Background(), jobs)
		if err == nil || out == nil || !strings.Contains(out.Generators[0].Error, c.field) {
			var ge string
			if out != nil && len(out.Generators) > 0 {
				ge = out.Generators[0].Error
			}
			t.Errorf("%s out of bounds: %v, generator said %q; want a refusal naming it", c.field, err, ge)
		}
	}
	if n := len(a.times()); n != 0 {
		t.Errorf("%d requests sent by jobs over the limits", n)
	}
	for _, edit := range []func(*Job){
		func(j *Job) { j.Open = &OpenJob{MaxInFlight: 200_000} },
		func(j *Job) { j.Batch = &BatchJob{MaxAttempts: 1000} },
		func(j *Job) { j.Open = &OpenJob{MaxInFlight: 1, DeadlineNs: -1} },
		func(j *Job) { j.StartAtNs = time.Now().Add(24 * time.Hour).UnixNano() },
	} {
		j := &Job{}
		edit(j)
		if err := j.bounds(time.Now()); err == nil {
			t.Errorf("%+v %+v start %d passed the bounds", j.Open, j.Batch, j.StartAtNs)
		}
	}
	ok := &Job{Closed: &ClosedJob{Concurrency: 10000, Requests: 1e9, DurationNs: int64(24 * time.Hour)}, StartAtNs: time.Now().Add(time.Minute).UnixNano()}
	if err := ok.bounds(time.Now()); err != nil {
		t.Errorf("a job at the limits: %v", err)
	}
}
