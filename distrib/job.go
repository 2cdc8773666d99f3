package distrib

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/faasbench/faasbench/load"
)

// Job is one generator's share of a load, as data: the model and its
// parameters (already this share's: see Split), the request, the client's
// options and checks, and the instant to start on the agent's own clock.
type Job struct {
	Cell      string     `json:"cell"`
	Share     load.Share `json:"share"`
	StartAtNs int64      `json:"start_at_ns"`
	Model     string     `json:"model"` // open, closed, batch
	Open      *OpenJob   `json:"open,omitempty"`
	Closed    *ClosedJob `json:"closed,omitempty"`
	Batch     *BatchJob  `json:"batch,omitempty"`
	Target    TargetJob  `json:"target"`
	Client    ClientJob  `json:"client"`
	// Records: keep every request, and send the file after the report.
	Records bool `json:"records,omitempty"`
	// LiveEveryNs, when set, asks the agent for its live counts ("live"
	// messages) this often while the job runs: the coordinator's watchers
	// then see every generator's share as it goes.
	LiveEveryNs int64 `json:"live_every_ns,omitempty"`
}

// LiveEvery is how often an agent sends its live counts when its
// coordinator's load is watched.
const LiveEvery = 500 * time.Millisecond

// OpenJob is a load.Open.
type OpenJob struct {
	Schedule     *load.WireSchedule `json:"schedule"`
	MaxInFlight  int                `json:"max_in_flight"`
	MaxLagNs     int64              `json:"max_lag_ns,omitempty"`
	ExpectedNs   int64              `json:"expected_ns,omitempty"`
	ResolutionNs int64              `json:"resolution_ns,omitempty"`
	DeadlineNs   int64              `json:"deadline_ns,omitempty"`
	GraceNs      int64              `json:"grace_ns,omitempty"`
	// Behind is the share's own check on its schedule (load.abort_when_behind).
	Behind *load.Behind `json:"behind,omitempty"`
}

// ClosedJob is a load.Closed.
type ClosedJob struct {
	Concurrency int              `json:"concurrency"`
	DurationNs  int64            `json:"duration_ns,omitempty"`
	Requests    int64            `json:"requests,omitempty"`
	Workers     *load.WireLevels `json:"workers,omitempty"`
	GraceNs     int64            `json:"grace_ns,omitempty"`
}

// BatchJob is a load.Batch.
type BatchJob struct {
	Items       [][]byte `json:"items"`
	MaxInFlight int      `json:"max_in_flight"`
	MaxAttempts int      `json:"max_attempts,omitempty"`
	BackoffNs   int64    `json:"backoff_ns,omitempty"`
}

// TargetJob is a load.Target.
type TargetJob struct {
	Method string      `json:"method,omitempty"`
	URL    string      `json:"url"`
	Header http.Header `json:"header,omitempty"`
	Body   []byte      `json:"body,omitempty"`
}

// ClientJob is a load.Options without its functions (the checks as data).
type ClientJob struct {
	TimeoutNs         int64       `json:"timeout_ns,omitempty"`
	NewConnPerRequest bool        `json:"new_conn_per_request,omitempty"`
	MaxConns          int         `json:"max_conns,omitempty"`
	NetHTTP           bool        `json:"net_http,omitempty"`
	NotReadyStatus    int         `json:"not_ready_status,omitempty"`
	Checks            load.Checks `json:"checks"`
}

// Batcher is an executor that runs a load.Batch (load.BatchExecutor, the
// experiment's batch kind): a batch is split by its items.
type Batcher interface {
	load.Executor
	LoadBatch() load.Batch
}

// NewJobs cuts ex into n generators' jobs for t with opts. Executors of other
// types, and parts that cannot travel (a per-request record sink, a retry
// function), are refused with the reason.
func NewJobs(ex load.Executor, n int, t load.Target, opts load.Options) ([]Job, error) {
	if n < 1 {
		return nil, fmt.Errorf("generators: %d: want at least 1", n)
	}
	var jobs []Job
	switch e := ex.(type) {
	case load.Open:
		for i := range n {
			s := e.Split(load.Share{Index: i, Of: n})
			ws, err := load.ToWire(s.Schedule)
			if err != nil {
				return nil, fmt.Errorf("generators: %w", err)
			}
			jobs = append(jobs, Job{Model: "open", Open: &OpenJob{Schedule: ws, MaxInFlight: s.MaxInFlight, MaxLagNs: int64(s.MaxLag), GraceNs: int64(s.Grace),
				ExpectedNs: int64(s.Expected), ResolutionNs: int64(s.Resolution), DeadlineNs: int64(s.Deadline), Behind: s.Behind}})
		}
	case load.Closed:
		for i := range n {
			s := e.Split(load.Share{Index: i, Of: n})
			j := &ClosedJob{Concurrency: s.Concurrency, DurationNs: int64(s.Duration), Requests: s.Requests, GraceNs: int64(s.Grace)}
			if s.Workers != nil {
				w := s.Workers.ToWire()
				j.Workers = &w
			}
			jobs = append(jobs, Job{Model: "closed", Closed: j})
		}
	case Batcher:
		b := e.LoadBatch()
		if b.Retry != nil {
			return nil, errors.New("generators: a batch with its own retry rule cannot be split over generators")
		}
		for i := range n {
			s := b.Split(load.Share{Index: i, Of: n})
			jobs = append(jobs, Job{Model: "batch", Batch: &BatchJob{Items: s.Items, MaxInFlight: s.MaxInFlight,
				MaxAttempts: s.MaxAttempts, BackoffNs: int64(s.Backoff)}})
		}
	default:
		return nil, fmt.Errorf("generators: a %T load cannot be split over generators", ex)
	}
	sink, live := coordinatorParts(ex)
	for i := range jobs {
		jobs[i].Share = load.Share{Index: i, Of: n}
		jobs[i].Records = sink != nil
		if live != nil {
			jobs[i].LiveEveryNs = int64(LiveEvery)
		}
		jobs[i].Target = TargetJob{Method: t.Method, URL: t.URL, Header: t.Header, Body: t.Body}
		jobs[i].Client = ClientJob{TimeoutNs: int64(opts.Timeout), NewConnPerRequest: opts.NewConnPerRequest, MaxConns: opts.MaxConns,
			NetHTTP: opts.NetHTTP, NotReadyStatus: opts.NotReadyStatus, Checks: opts.Checks}
	}
	return jobs, nil
}

// coordinatorParts are what of an executor NewJobs splits stays with the
// coordinator: its record sink (the generators' rows join it) and its live
// counters (the generators' live messages add to them); nil: none.
func coordinatorParts(ex load.Executor) (*load.RecordSink, *load.Live) {
	switch e := ex.(type) {
	case load.Open:
		return e.Records, e.Live
	case load.Closed:
		return e.Records, e.Live
	case Batcher:
		b := e.LoadBatch()
		return b.Records, b.Live
	}
	return nil, nil
}

// workers is how many workers the job runs at most (a records sink wants
// about two chunks each).
func (j *Job) workers() int {
	switch {
	case j.Open != nil:
		return max(j.Open.MaxInFlight, 1)
	case j.Closed != nil:
		return max(j.Closed.Concurrency, 1)
	case j.Batch != nil:
		return max(j.Batch.MaxInFlight, 1)
	}
	return 1
}

// Empty reports whether the job sends nothing (a share with no worker or
// no item): the agent then reports an empty result at once.
func (j *Job) Empty() bool {
	switch {
	case j.Closed != nil:
		return j.Closed.Concurrency == 0 || (j.Closed.Workers != nil && j.Closed.Workers.Max == 0)
	case j.Batch != nil:
		return len(j.Batch.Items) == 0
	}
	return false
}

// executor makes the job's executor, starting at start, its records (if
// any) going to sink, its counts to live (nil: none).
func (j *Job) executor(start time.Time, sink *load.RecordSink, live *load.Live) (load.Executor, error) {
	switch j.Model {
	case "open":
		if j.Open == nil {
			return nil, errors.New("job: open without its parameters")
		}
		s, err := j.Open.Schedule.Build()
		if err != nil {
			return nil, fmt.Errorf("job: %w", err)
		}
		o := load.Open{Schedule: s, MaxInFlight: j.Open.MaxInFlight, MaxLag: time.Duration(j.Open.MaxLagNs), Expected: time.Duration(j.Open.ExpectedNs), Grace: time.Duration(j.Open.GraceNs),
			Resolution: time.Duration(j.Open.ResolutionNs), Deadline: time.Duration(j.Open.DeadlineNs), StartAt: start, Records: sink,
			Behind: j.Open.Behind, Live: live}
		return o, o.Validate()
	case "closed":
		if j.Closed == nil {
			return nil, errors.New("job: closed without its parameters")
		}
		c := load.Closed{Concurrency: j.Closed.Concurrency, Duration: time.Duration(j.Closed.DurationNs), Requests: j.Closed.Requests, Grace: time.Duration(j.Closed.GraceNs), StartAt: start, Records: sink, Live: live}
		if j.Closed.Workers != nil {
			w, err := j.Closed.Workers.Build()
			if err != nil {
				return nil, fmt.Errorf("job: %w", err)
			}
			c.Workers = w
		}
		return c, c.Validate()
	case "batch":
		if j.Batch == nil {
			return nil, errors.New("job: batch without its parameters")
		}
		b := load.Batch{Items: j.Batch.Items, MaxInFlight: j.Batch.MaxInFlight, MaxAttempts: j.Batch.MaxAttempts, Backoff: time.Duration(j.Batch.BackoffNs), StartAt: start, Records: sink, Live: live}
		return &load.BatchExecutor{B: b}, b.Validate()
	}
	return nil, fmt.Errorf("job: unknown model %q", j.Model)
}

// target is the job's request, checked against the origins the agent was
// started with: an agent sends load only where its coordinator's plan said
// when the agent was made, never where a later message asks.
func (j *Job) target(allow []string) (load.Target, error) {
	t := load.Target{Method: j.Target.Method, URL: j.Target.URL, Header: j.Target.Header, Body: j.Target.Body}
	if err := t.Validate(); err != nil {
		return t, fmt.Errorf("job: %w", err)
	}
	o, err := Origin(t.URL)
	if err != nil {
		return t, err
	}
	for _, a := range allow {
		if a == o {
			return t, nil
		}
	}
	return t, fmt.Errorf("job: target %s is not among the agent's allowed targets (%s)", o, strings.Join(allow, ", "))
}

// Origin is scheme://host:port of u (the port made explicit).
func Origin(u string) (string, error) {
	p, err := url.Parse(u)
	if err != nil {
		return "", fmt.Errorf("target %q: %w", u, err)
	}
	if p.Scheme != "http" && p.Scheme != "https" || p.Hostname() == "" {
		return "", fmt.Errorf("target %q: want http(s)://host[:port]", u)
	}
	port := p.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[p.Scheme]
	}
	host := p.Hostname()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return p.Scheme + "://" + host + ":" + port, nil
}

func (j *Job) options() load.Options {
	o := load.Options{Timeout: time.Duration(j.Client.TimeoutNs), NewConnPerRequest: j.Client.NewConnPerRequest, MaxConns: j.Client.MaxConns,
		NetHTTP: j.Client.NetHTTP, NotReadyStatus: j.Client.NotReadyStatus, Checks: j.Client.Checks}
	o.Validate, o.ValidatePair = o.Checks.Funcs()
	return o
}
