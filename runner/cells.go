package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// sampleEvery is the run timeline's interval (replicas, CPU, memory).
const sampleEvery = time.Second

// cells runs a plan's cells on a started platform.
type cells struct {
	*Run
	p        platform.Platform
	env      *experiment.Env
	driver   experiment.Driver
	deployed map[string]platform.Function
	// used marks the deployments a cell has run on (FreshStart kinds redeploy them).
	used map[string]bool
	// repetition is the repetition of the last cell run (0: none yet).
	repetition int
	// undrained says why the last measurement left the platform running
	// its invocations ("": it did not): the next one is marked (drain.go).
	undrained string
}

// run deploys the spec's functions and runs the cells in order (the plan
// grows as an adaptive kind decides). The summary is rewritten after every
// cell. On interruption the cell in progress is kept (marked interrupted)
// and ErrInterrupted is returned.
func (c *cells) run(ctx context.Context) (err error) {
	names := make([]string, len(c.sp.Functions))
	for i, f := range c.sp.Functions {
		names[i] = f.Name
	}
	tl := observe.StartTimeline(c.p, names, sampleEvery)
	defer func() {
		if werr := c.dir.WriteJSON("timeline.json", tl.Stop()); werr != nil && err == nil {
			err = werr
		}
	}()
	for _, f := range c.sp.Functions {
		fmt.Fprintf(c.o.Log, "deploying %s (%s in %s, %d replica(s)) on %s\n", f.Name, f.Workload, f.Language, f.Replicas, c.p.Name())
		fn, err := experiment.FunctionOf(f, nil, c.env)
		if err != nil {
			return err
		}
		if err := c.deploy(ctx, fn); err != nil {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			return err
		}
	}
	if err := c.probe(ctx); err != nil {
		return err
	}
	if len(c.done) == 0 {
		c.sum.IdleFootprint = c.idleFootprint(ctx, tl)
	}
	fmt.Fprintf(c.o.Log, "\n%-28s %10s %9s %9s %9s %9s  %s\n", "cell", "req/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors")
	prog := newProgress(c.o.Progress, len(c.cells), time.Now())
	defer prog.stop()
	if w := c.o.Watch; w != nil {
		prog.watch = w
		w.RunStarted(c.m.RunID, c.sp.Name, c.p.Name(), len(c.cells), tl.Latest)
	}
	adaptive, _ := c.kind.(experiment.Adaptive)
	// The plan grows while it runs (an adaptive kind adds cells after the one that decided).
	for i := 0; i < len(c.cells); i++ {
		pc := c.cells[i]
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		if c.done[pc.ID] {
			prog.skip(pc)
			continue
		}
		if err := c.reset(ctx, pc); err != nil {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			return fmt.Errorf("cell %s: %w", pc.ID, err)
		}
		if err := c.ensure(ctx, pc); err != nil {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			return fmt.Errorf("cell %s: %w", pc.ID, err)
		}
		if err := c.lost(); err != nil {
			return err
		}
		prog.begin(pc)
		c.used[pc.Function] = true
		out, err := c.runCell(ctx, pc, prog)
		if err != nil {
			if ctx.Err() != nil {
				// A kind's error because it was interrupted is the interruption.
				return ErrInterrupted
			}
			return fmt.Errorf("cell %s: %w", pc.ID, err)
		}
		// A platform that died during the cell: what it measured is
		// connection errors, not the platform; the cell is not kept.
		if err := c.lost(); err != nil {
			return fmt.Errorf("cell %s: not kept: %w", pc.ID, err)
		}
		out = c.remeasure(ctx, pc, prog, out)
		if out != nil {
			out.Warnings = append(out.Warnings, contentionWarning(pc, len(c.platCPUs))...)
			out.Efficiency = efficiencyOf(tl, out, c.deployed[pc.Function], c.sp.Cost)
			out.PlatformFootprint = cellFootprint(tl, out)
			experiment.Expect(c.sp.Expect, out)
			if x := out.Expect; x != nil && !x.Held {
				out.Warnings = append(out.Warnings, "expectation broken ("+x.Rule+"): "+x.Why)
			}
			if adaptive != nil && !out.Interrupted {
				if err := c.log.decide(adaptive, *out, append(c.sum.Cells[:len(c.sum.Cells):len(c.sum.Cells)], *out)); err != nil {
					return err
				}
				c.cells = c.log.plan
				c.m.Plan = c.cells
				prog.grow(len(c.cells))
			}
			c.sum.Cells = append(c.sum.Cells, *out)
			if u := c.sp.Until; u != nil && i == len(c.cells)-1 && !out.Interrupted {
				if err := c.until(*u, out.ID, prog); err != nil {
					return err
				}
			}
			if err := c.dir.WriteJSON("summary.json", c.sum); err != nil {
				return err
			}
			prog.end(out)
			printRow(c.o.Log, out)
			if out.Behind != "" {
				return fmt.Errorf("%w: cell %s stopped the run: %s", ErrBehind, out.ID, out.Behind)
			}
			if h := c.o.AfterCell; h != nil && !out.Interrupted {
				if err := h(c.dir.Path, *out); err != nil {
					return fmt.Errorf("%w after cell %s: %w", ErrAborted, out.ID, err)
				}
			}
		}
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		if cd := c.sp.Load.Cooldown.D(); cd > 0 {
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
func (c *cells) lost() error {
	if l, ok := c.p.(platform.Liveness); ok {
		if err := l.Lost(); err != nil {
			return fmt.Errorf("the platform is gone: %w", err)
		}
	}
	return nil
}

// runCell measures one cell through the kind, with what the platform said
// of its data path as the cell began and ended.
func (c *cells) runCell(ctx context.Context, pc plan.Cell, prog *progress) (*results.Cell, error) {
	fn, dataPath, err := c.target(ctx, pc)
	if err != nil {
		return nil, err
	}
	cell := &experiment.Cell{Plan: pc, RunID: c.m.RunID, Platform: c.p, Catalog: c.o.Catalog, Dir: c.dir,
		Functions: []experiment.Function{fn}, Driver: c.driver, Live: prog.live, Log: c.o.Log, Path: c.specPath, Roots: c.roots(), CPUs: c.platCPUs,
		Deployed: c.deployed[pc.Function],
		TargetOf: func(ctx context.Context, name string) (load.Target, error) {
			f, err := c.targetAs(ctx, pc, name)
			return f.Target, err
		}}
	began := time.Now()
	out, err := c.kind.Run(ctx, cell)
	if err == nil {
		c.besideBacklog(out)
		c.drain(ctx, pc, began, out)
	}
	if out != nil && dataPath != "" {
		out.DataPath = dataPath
		// The path can change during the cell (Knative's activator leaves it as pods appear).
		if pr, ok := c.p.(platform.PathReporter); ok && !strings.HasPrefix(dataPath, "direct") {
			if end, err := pr.DataPath(ctx, pc.Function); err == nil && end != dataPath {
				out.DataPath = dataPath + " at the start; " + end + " at the end"
			}
		}
	}
	return out, err
}

// contentionWarning says when a cell's instances outnumber the platform's
// cores: beyond that, more instances measure contention, not scaling.
func contentionWarning(pc plan.Cell, cores int) []string {
	if cores <= 0 || pc.Replicas <= cores {
		return nil
	}
	return []string{fmt.Sprintf("%d instances on %d platform core(s): beyond %d instances this measures contention for the cores, not scaling", pc.Replicas, cores, cores)}
}

// until runs spec until's decision after the plan's last cell: another
// round of repetitions (kept in decisions.json, so a resumed run replays
// it) or the end, recorded in the summary.
func (c *cells) until(u spec.UntilSpec, after string, prog *progress) error {
	d, outcome := untilRound(u, c.sp, c.cells, results.PoolKeys(c.dir.Path, c.sum.Cells), after)
	c.sum.Until = &outcome
	fmt.Fprintf(c.o.Log, "until: %s\n", outcome.Reason)
	if d == nil {
		return nil
	}
	if err := c.log.record(*d); err != nil {
		return err
	}
	c.cells = c.log.plan
	c.m.Plan = c.cells
	prog.grow(len(c.cells))
	return nil
}
