package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
	"github.com/faasbench/faasbench/workloads"
)

// Sweep runs every cell of a plan: a closed-loop load per cell, after a
// warm-up whose figures are discarded.
type Sweep struct {
	Platform platform.Platform
	Catalog  *workloads.Catalog
	Dir      *results.Dir
	Summary  *results.Summary
	// Log receives human progress (a table row per cell); io.Discard is fine.
	Log io.Writer
	// SampleEvery is the timeline's interval (replicas, CPU, memory); default 1 s.
	SampleEvery time.Duration
	// SpecDir is the spec file's directory: relative payload files start there.
	SpecDir string
}

// ErrInterrupted is returned when the context ended the sweep early.
var ErrInterrupted = errors.New("interrupted")

// Run deploys the spec's functions and runs cells in order. The summary is
// rewritten after every cell. On interruption the cell in progress is kept
// (marked interrupted) and ErrInterrupted is returned.
func (s *Sweep) Run(ctx context.Context, sp spec.Spec, cells []plan.Cell) (err error) {
	names := make([]string, len(sp.Functions))
	for i, f := range sp.Functions {
		names[i] = f.Name
	}
	tl := observe.StartTimeline(s.Platform, names, s.SampleEvery)
	defer func() {
		if werr := s.Dir.WriteJSON("timeline.json", tl.Stop()); werr != nil && err == nil {
			err = werr
		}
	}()
	for _, f := range sp.Functions {
		fmt.Fprintf(s.Log, "deploying %s (%s in %s, %d replica(s)) on %s\n", f.Name, f.Workload, f.Language, f.Replicas, s.Platform.Name())
		fn := platform.Function{Name: f.Name, Workload: f.Workload, Language: f.Language, Replicas: f.Replicas,
			Mode: f.Mode, Workers: f.Workers, Concurrency: f.Concurrency, Settings: f.Settings}
		env, missing := spec.ExpandEnv(f.Env, os.LookupEnv)
		if len(missing) > 0 {
			return fmt.Errorf("deploy %s: env refers to %s, not set in faasbench's environment", f.Name, strings.Join(missing, ", "))
		}
		fn.Env = env
		if err := s.Platform.Deploy(ctx, fn); err != nil {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			return fmt.Errorf("deploy %s: %w", f.Name, err)
		}
	}
	fmt.Fprintf(s.Log, "\n%-28s %10s %9s %9s %9s %9s  %s\n", "cell", "req/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors")
	for _, pc := range cells {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		c, err := s.runCell(ctx, sp, pc)
		if err != nil {
			return fmt.Errorf("cell %s: %w", pc.ID, err)
		}
		if c != nil {
			s.Summary.Cells = append(s.Summary.Cells, *c)
			if err := s.Dir.WriteJSON("summary.json", s.Summary); err != nil {
				return err
			}
			printRow(s.Log, c)
		}
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		if cd := sp.Load.Cooldown.D(); cd > 0 {
			select {
			case <-ctx.Done():
				return ErrInterrupted
			case <-time.After(cd):
			}
		}
	}
	return nil
}

// target is a cell's request: the workload's default, with the function's
// request overrides.
func (s *Sweep) target(sp spec.Spec, req spec.RequestSpec, w *workloads.Workload, url string) (load.Target, error) {
	t := load.Target{Method: w.Request.Method, URL: url + w.Request.Path}
	if req.Path != "" {
		t.URL = url + req.Path
	}
	size := w.Request.PayloadSize
	if req.PayloadSize > 0 {
		size = req.PayloadSize
	}
	switch {
	case req.PayloadFile != "":
		path := req.PayloadFile
		if !filepath.IsAbs(path) && s.SpecDir != "" {
			path = filepath.Join(s.SpecDir, path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return t, fmt.Errorf("payload: %w", err)
		}
		t.Body = b
	case size > 0:
		t.Body = load.Payload(size, uint64(sp.Seed))
	}
	if t.Method == "" {
		t.Method = "GET"
		if t.Body != nil {
			t.Method = "POST"
		}
	}
	return t, nil
}

func (s *Sweep) runCell(ctx context.Context, sp spec.Spec, pc plan.Cell) (*results.Cell, error) {
	url, err := s.Platform.Endpoint(ctx, pc.Function)
	if err != nil {
		return nil, err
	}
	w, ok := s.Catalog.Get(pc.Workload)
	if !ok {
		return nil, fmt.Errorf("workload %q not in the catalogue", pc.Workload)
	}
	opts := load.Options{Timeout: sp.Load.Timeout.D(), NewConnPerRequest: !*sp.Load.KeepAlive}
	var req spec.RequestSpec
	for _, f := range sp.Functions {
		if f.Name == pc.Function {
			req = f.Request
		}
	}
	opts.Validate, opts.ValidatePair = Validators(w, req)
	target, err := s.target(sp, req, w, url)
	if err != nil {
		return nil, err
	}
	var sink *load.RecordSink
	if sp.Load.Records {
		f, err := s.recordsFile(pc)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		sink = load.NewRecordSink(f, 2*pc.Concurrency+4, load.Meta(s.Summary.RunID, time.Now().UnixNano()))
	}
	cl := load.NewClient(opts)
	defer cl.Close()
	run := func(d time.Duration, n int64, records *load.RecordSink) (*load.Result, error) {
		if sp.Load.Model != "open" {
			return load.Closed{Concurrency: pc.Concurrency, Duration: d, Requests: n, Records: records}.Run(ctx, cl, target)
		}
		ss, err := load.ParseScheduleSpec(fmt.Sprintf("%s:%g", sp.Load.Schedule, pc.Rate))
		if err != nil {
			return nil, err
		}
		sched, err := ss.Build(uint64(sp.Seed)+uint64(pc.Index), d, n)
		if err != nil {
			return nil, err
		}
		return load.Open{Schedule: sched, MaxInFlight: pc.Concurrency, Expected: d, Records: records}.Run(ctx, cl, target)
	}
	if wu := sp.Load.Warmup.D(); wu > 0 {
		if _, err := run(wu, 0, nil); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
		if ctx.Err() != nil {
			return nil, nil
		}
	}
	mon := load.StartMonitor(time.Now(), time.Second)
	res, err := run(sp.Load.Duration.D(), sp.Load.Requests, sink)
	gen := mon.Stop()
	if err != nil {
		return nil, err
	}
	var dropped int64
	if sink != nil {
		if _, dropped, err = sink.Close(); err != nil {
			return nil, err
		}
	}
	if res.Interrupted && res.Total() == 0 {
		return nil, nil
	}
	c := CellFigures(pc, s.Platform.Name(), sp.Load.Model, res, gen, mon.Cores)
	if dropped > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("records: %d of %d requests not written (the writer fell behind); the figures count them all", dropped, res.Total()))
	}
	return &c, nil
}

// recordsFile creates records/<cell>.parquet in the run directory.
func (s *Sweep) recordsFile(pc plan.Cell) (*os.File, error) {
	dir := s.Dir.File("records")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	name := strings.NewReplacer("/", "_", "=", "").Replace(pc.ID) + ".parquet"
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	return f, nil
}

func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

func fmtMs(p *float64) string {
	if p == nil {
		return "n<min"
	}
	return fmt.Sprintf("%.3f", *p)
}

func printRow(w io.Writer, c *results.Cell) {
	errs := "none"
	if len(c.Errors) > 0 {
		errs = results.FormatCounts(c.Errors, " ")
	}
	mark := ""
	if c.Interrupted {
		mark = " (interrupted)"
	}
	fmt.Fprintf(w, "%-28s %10.1f %9s %9s %9s %9.3f  %s%s\n", c.ID, c.ThroughputRPS, fmtMs(c.SuccessLatencyMs.P50),
		fmtMs(c.SuccessLatencyMs.P90), fmtMs(c.SuccessLatencyMs.P99), c.LatencyMs.Max, errs, mark)
}
