package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
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
	// Env resolves ${...} in the spec (Prepare's data and services); nil:
	// faasbench's environment only.
	Env *Env
	// Done lists the IDs of cells already in the summary (a resumed run):
	// they are not run again.
	Done map[string]bool
	// Progress, if set, receives a live status line about twice a second
	// (cell i/N, elapsed, ETA, req/s, p99, errors, replicas).
	Progress io.Writer
	// PlatformCores is the CPUs the platform was given (0: unknown): cells
	// with more instances than that are flagged as measuring contention.
	PlatformCores int
	deployed      map[string]platform.Function
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
		fn, err := FunctionOf(f, nil, s.Env)
		if err != nil {
			return err
		}
		if err := s.deploy(ctx, fn); err != nil {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			return err
		}
	}
	fmt.Fprintf(s.Log, "\n%-28s %10s %9s %9s %9s %9s  %s\n", "cell", "req/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors")
	prog := newProgress(s.Progress, len(cells), time.Now())
	defer prog.stop()
	for _, pc := range cells {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		if s.Done[pc.ID] {
			prog.skip(pc)
			continue
		}
		if err := s.ensure(ctx, sp, pc); err != nil {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			return fmt.Errorf("cell %s: %w", pc.ID, err)
		}
		if err := s.lost(); err != nil {
			return err
		}
		prog.begin(pc)
		c, err := s.runCell(ctx, sp, pc, prog)
		if err != nil {
			return fmt.Errorf("cell %s: %w", pc.ID, err)
		}
		// A platform that died during the cell: what it measured is
		// connection errors, not the platform; the cell is not kept.
		if err := s.lost(); err != nil {
			return fmt.Errorf("cell %s: not kept: %w", pc.ID, err)
		}
		if c != nil {
			c.Warnings = append(c.Warnings, contentionWarning(pc, s.PlatformCores)...)
			s.Summary.Cells = append(s.Summary.Cells, *c)
			if err := s.Dir.WriteJSON("summary.json", s.Summary); err != nil {
				return err
			}
			prog.end(c)
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

// lost is the platform's own word that it is gone (platform.Liveness).
func (s *Sweep) lost() error {
	if l, ok := s.Platform.(platform.Liveness); ok {
		if err := l.Lost(); err != nil {
			return fmt.Errorf("the platform is gone: %w", err)
		}
	}
	return nil
}

// cellSetup is what every kind of cell starts from: the client options
// (with the response checks) and the request.
type cellSetup struct {
	opts   load.Options
	target load.Target
	// dataPath is what the platform said its data path was as the cell began (PathReporter).
	dataPath string
}

func (s *Sweep) setup(ctx context.Context, sp spec.Spec, pc plan.Cell) (*cellSetup, error) {
	url, err := s.Platform.Endpoint(ctx, pc.Function)
	if err != nil {
		return nil, err
	}
	via, _ := pc.Params.Get("via")
	direct := via == "direct"
	if direct {
		dc, ok := s.Platform.(platform.DirectCaller)
		if !ok {
			return nil, fmt.Errorf("platform %s cannot be called without its gateway (no DirectCaller)", s.Platform.Name())
		}
		eps, err := dc.DirectEndpoints(ctx, pc.Function)
		if err != nil {
			return nil, err
		}
		if len(eps) == 0 {
			return nil, fmt.Errorf("no instance of %s to call directly", pc.Function)
		}
		url = eps[0]
	}
	w, ok := s.Catalog.Get(pc.Workload)
	if !ok {
		return nil, fmt.Errorf("workload %q not in the catalogue", pc.Workload)
	}
	cs := &cellSetup{opts: load.Options{Timeout: sp.Load.Timeout.D(), NewConnPerRequest: !*sp.Load.KeepAlive}}
	req := functionSpec(sp, pc.Function).Request
	if p, ok := pc.Params.Get("path"); ok {
		req.Path, req.Expect = p, ""
	}
	if n, ok := pc.Params.Int("payload_size"); ok {
		req.PayloadSize, req.PayloadFile = n, ""
	}
	cs.opts.Validate, cs.opts.ValidatePair = Validators(w, req)
	if cs.target, err = s.target(sp, req, w, url); err != nil {
		return nil, err
	}
	if hr, ok := s.Platform.(platform.HostRouter); ok && !direct {
		host, err := hr.FunctionHost(ctx, pc.Function)
		if err != nil {
			return nil, err
		}
		if host != "" {
			if cs.target.Header == nil {
				cs.target.Header = http.Header{}
			}
			cs.target.Header.Set("Host", host)
		}
	}
	if pr, ok := s.Platform.(platform.PathReporter); ok && !direct {
		if cs.dataPath, err = pr.DataPath(ctx, pc.Function); err != nil {
			cs.dataPath = "unknown: " + err.Error()
		}
	} else if direct {
		cs.dataPath = "direct to an instance"
	}
	return cs, nil
}

func (s *Sweep) runCell(ctx context.Context, sp spec.Spec, pc plan.Cell, prog *progress) (*results.Cell, error) {
	cs, err := s.setup(ctx, sp, pc)
	if err != nil {
		return nil, err
	}
	var c *results.Cell
	switch pc.Kind {
	case spec.KindBatch:
		c, err = s.batchCell(ctx, sp, pc, cs)
	case spec.KindColdStart:
		c, err = s.coldCell(ctx, sp, pc, cs)
	case spec.KindAutoscale:
		c, err = s.autoscaleCell(ctx, sp, pc, cs, prog)
	default:
		c, err = s.loadCell(ctx, sp, pc, cs, prog)
	}
	if c != nil && cs.dataPath != "" {
		c.DataPath = cs.dataPath
		// The path can change during the cell (Knative's activator leaves it as pods appear).
		if pr, ok := s.Platform.(platform.PathReporter); ok && !strings.HasPrefix(cs.dataPath, "direct") {
			if end, err := pr.DataPath(ctx, pc.Function); err == nil && end != cs.dataPath {
				c.DataPath = cs.dataPath + " at the start; " + end + " at the end"
			}
		}
	}
	return c, err
}

// loadCell is a sweep or baseline cell: warm-up, then the measured load.
func (s *Sweep) loadCell(ctx context.Context, sp spec.Spec, pc plan.Cell, cs *cellSetup, prog *progress) (*results.Cell, error) {
	target, opts := cs.target, cs.opts
	var sink *load.RecordSink
	var recFile *results.Pending
	if sp.Load.Records {
		var err error
		if recFile, err = s.recordsFile(pc); err != nil {
			return nil, err
		}
		defer recFile.Abort() // unless committed below
		sink = load.NewRecordSink(recFile, 2*pc.Concurrency+4, load.Meta(s.Summary.RunID, time.Now().UnixNano()))
	}
	cl := load.NewClient(opts)
	defer cl.Close()
	run := func(d time.Duration, n int64, records *load.RecordSink) (*load.Result, error) {
		if sp.Load.Model != "open" {
			return load.Closed{Concurrency: pc.Concurrency, Duration: d, Requests: n, Records: records, Live: prog.live()}.Run(ctx, cl, target)
		}
		ss, err := load.ParseScheduleSpec(fmt.Sprintf("%s:%g", sp.Load.Schedule, pc.Rate))
		if err != nil {
			return nil, err
		}
		sched, err := ss.Build(uint64(sp.Seed)+uint64(pc.Index), d, n)
		if err != nil {
			return nil, err
		}
		return load.Open{Schedule: sched, MaxInFlight: pc.Concurrency, Expected: d, Records: records, Live: prog.live(), Deadline: d}.Run(ctx, cl, target)
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
		if err := recFile.Commit(); err != nil {
			return nil, err
		}
	}
	if res.Interrupted && res.Total() == 0 {
		return nil, nil
	}
	c := CellFigures(pc, s.Platform.Name(), sp.Load.Model, res, gen, mon.Cores)
	if err := s.writeHlog(pc, res); err != nil {
		return nil, err
	}
	if dropped > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("records: %d of %d requests not written (the writer fell behind); the figures count them all", dropped, res.Total()))
	}
	return &c, nil
}

// recordsFile starts records/<cell>.parquet in the run directory (it
// appears when the cell's records are complete).
func (s *Sweep) recordsFile(pc plan.Cell) (*results.Pending, error) {
	f, err := s.Dir.Create(filepath.Join("records", results.RecordsName(pc.ID)))
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
	switch {
	case c.Batch != nil:
		b := c.Batch
		fmt.Fprintf(w, "%-28s batch of %d in %.2f s: %.2f items/s, %.2f MiB/s, K=%d, %d retries, %d failed%s\n", c.ID, b.Items, b.DurationS,
			b.ItemsPerS, b.MiBPerS, b.InFlight, b.Retries, b.Failed, mark)
		return
	case c.Cold != nil && c.Cold.ColdShare != nil:
		fmt.Fprintf(w, "%-28s after %.1f s idle: %d of %d calls cold%s\n", c.ID, c.Cold.IdleS, c.Cold.Verified, c.Cold.Iterations, mark)
		return
	case c.Cold != nil:
		cr := c.Cold
		fmt.Fprintf(w, "%-28s cold mean %.2f ms (%d verified of %d), warm mean %.3f ms, waiting for the instance %.2f ms%s\n", c.ID,
			cr.ColdMs.Mean, cr.Verified, cr.Iterations, cr.WarmMs.Mean, cr.WaitMs.Mean, mark)
		return
	}
	fmt.Fprintf(w, "%-28s %10.1f %9s %9s %9s %9.3f  %s%s\n", c.ID, c.ThroughputRPS, fmtMs(c.SuccessLatencyMs.P50),
		fmtMs(c.SuccessLatencyMs.P90), fmtMs(c.SuccessLatencyMs.P99), c.LatencyMs.Max, errs, mark)
	if s := c.Scaling; s != nil {
		fmt.Fprintf(w, "%-28s replicas: max %d (first scale-up %s s, max at %s s), back down %s s after the load, %d errors while scaling\n", "",
			s.MaxReplicas, fmtS(s.FirstScaleUpS), fmtS(s.TimeToMaxS), fmtS(s.ScaleDownS), s.ErrorsScaling)
	}
}

func fmtS(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", *p)
}

// specPath is a path the spec gives: ${...} expanded, relative to the
// spec's directory (as spec.Parsed.Resolve checks it before the run).
func (s *Sweep) specPath(p string) string {
	if s.Env != nil {
		p = s.Env.Expand(p)
	}
	if !filepath.IsAbs(p) && s.SpecDir != "" {
		p = filepath.Join(s.SpecDir, p)
	}
	return p
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
		b, err := readPayload(s.specPath(req.PayloadFile))
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

// readPayload reads a request body from a file, refusing what is not a
// regular file of at most spec.MaxPayloadSize bytes (checked again here: the
// file may have changed since the spec was validated, and a path from
// ${data.*} is known only now).
func readPayload(path string) ([]byte, error) {
	if err := spec.CheckPayloadFile(path); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, spec.MaxPayloadSize+1))
	if err == nil && len(b) > spec.MaxPayloadSize {
		err = fmt.Errorf("%s grew past %d bytes while read", path, spec.MaxPayloadSize)
	}
	return b, err
}
