package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// sweep is kind sweep: per cell, a warm-up whose figures are discarded,
// then the measured load, closed (concurrency) or open (rate) loop.
type sweep struct {
	load spec.LoadSpec
	seed int64
}

func newSweep(sp spec.Spec) (Kind, error) { return sweep{load: sp.Load, seed: sp.Seed}, nil }

func (k sweep) Levels() []plan.Level { return plan.LoadLevels(k.load) }

func (k sweep) Files(c plan.Cell) []string {
	files := latencyFiles(c.ID)
	if k.load.Records {
		files = append(files, recordsFile(c.ID))
	}
	return files
}

func (k sweep) Run(ctx context.Context, c *Cell) (*results.Cell, error) {
	pc, fn := c.Plan, c.Measured()
	var sink *load.RecordSink
	var recFile *results.Pending
	if k.load.Records {
		var err error
		if recFile, err = c.Dir.Create(recordsFile(pc.ID)); err != nil {
			return nil, fmt.Errorf("records: %w", err)
		}
		defer recFile.Abort() // unless committed below
		sink = load.NewRecordSink(recFile, 2*pc.Concurrency+4, load.Meta(c.RunID, time.Now().UnixNano()))
	}
	ses := c.Driver.Session(fn.Options)
	defer ses.Close()
	// The warm-up runs without the behind rule: a platform still warming up may lag.
	run := func(d time.Duration, n int64, records *load.RecordSink, behind *load.Behind) (Driven, error) {
		if k.load.Model != "open" {
			return ses.Drive(ctx, load.Closed{Concurrency: pc.Concurrency, Duration: d, Requests: n, Records: records, Live: c.live(), Grace: k.load.GraceD()}, fn.Target)
		}
		ss, err := load.ParseScheduleSpec(fmt.Sprintf("%s:%g", k.load.Schedule, pc.Rate))
		if err != nil {
			return Driven{}, err
		}
		sched, err := ss.Build(uint64(k.seed)+uint64(pc.Index), d, n)
		if err != nil {
			return Driven{}, err
		}
		return ses.Drive(ctx, load.Open{Schedule: sched, MaxInFlight: pc.Concurrency, Expected: d, Records: records, Live: c.live(), Deadline: d, Behind: behind, Grace: k.load.GraceD()}, fn.Target)
	}
	warm, err := warmUp(ctx, k.load, func(d time.Duration) (*load.Result, error) {
		dr, err := run(d, 0, nil, nil)
		return dr.Result, err
	})
	if err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	if ctx.Err() != nil {
		return nil, nil
	}
	dr, err := run(k.load.Duration.D(), k.load.Requests, sink, BehindRule(k.load))
	if err != nil {
		return nil, err
	}
	res := dr.Result
	var dropped int64
	if sink != nil {
		if _, dropped, err = sink.Close(); err != nil {
			return nil, err
		}
	}
	if res.Interrupted && res.Total() == 0 && res.Behind == "" {
		return nil, nil
	}
	out := CellFigures(pc, c.Platform.Name(), k.load.Model, res, dr.Generator, dr.Cores)
	out.Warmup = warm
	if warm != nil && !warm.Steady {
		out.Warnings = append(out.Warnings, "warm-up: "+warm.Reason)
	}
	dr.Split.Apply(&out)
	// The records appear only once the cell's latency files are written: a cell lost to a full disk
	// leaves none of its files (the deferred Abort drops the records).
	if err := c.writeHlog(res); err != nil {
		return nil, err
	}
	if recFile != nil {
		if err := recFile.Commit(); err != nil {
			c.dropFiles(latencyFiles(pc.ID)...)
			return nil, err
		}
	}
	if dropped > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("records: %d of %d requests not written (the writer fell behind); the figures count them all", dropped, res.Total()))
	}
	return &out, nil
}
