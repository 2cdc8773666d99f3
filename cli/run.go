package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/livedash"
	"github.com/faasbench/faasbench/livemetrics"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/runner"
	"github.com/faasbench/faasbench/spec"
	"github.com/faasbench/faasbench/threshold"
	"github.com/faasbench/faasbench/workloads"
)

type runOpts struct {
	resultsDir string
	workloads  string
	noPin      bool
	smoke      bool
	resume     string
	dryRun     bool
	sets       []string
	generators int
	cluster    clusterFlags
	thresholds []string
	// metricsListen is --metrics-listen: where the live exporter listens ("" off).
	metricsListen string
	// remoteWrite is --remote-write: a remote-write endpoint ("" off), every remoteEvery.
	remoteWrite string
	remoteEvery time.Duration
	// dashboardListen is --dashboard-listen: where the live dashboard listens ("" off).
	dashboardListen string
	// parsed are the thresholds, read before anything starts.
	parsed []threshold.Threshold
}

func (a *app) runCmd() *cobra.Command {
	var o runOpts
	cmd := &cobra.Command{
		Use:   "run SPEC.yaml",
		Short: "Run an experiment spec and write a run directory with a report",
		Long: `Run an experiment: validate the spec (nothing starts if it is wrong), start the platform,
deploy the functions, run every cell of the plan (warm-up discarded), and write
<results>/<name>-<time>/ with manifest.json, summary.json, summary.md and report.html.

On SIGINT or SIGTERM the run stops, keeps what it measured, marks the manifest
"partial", tears the platform down and exits 130.

--threshold (repeatable) gives pass/fail criteria, held by every cell: p99<100ms, p99[10s]<250ms
(every 10 s window of a cell), errors<0.1%, rps>=500, max<2s; metrics p50, p90, p95, p99, p99.9,
max, mean (ms, s or us), errors (a share or %), rps. A run that went to its end with a threshold
broken exits 4; the outcomes are printed and kept in the run directory's thresholds.json. With
:abort (p99<100ms:abort) the first cell that breaks it stops the run there: the cells measured
are kept, the manifest says partial and why, and the exit is 4.`,
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ths, err := threshold.ParseAll(o.thresholds)
			if err != nil {
				return usageErr("%v", err)
			}
			o.parsed = ths
			switch {
			case o.resume != "" && len(args) == 1:
				return usageErr("--resume: give the run directory or a spec, not both")
			case o.resume != "" && o.dryRun:
				return usageErr("--dry-run: give a spec (a resumed run's plan is in its manifest.json)")
			case o.resume == "" && len(args) == 0:
				return usageErr("run: want a spec file (or --resume RUNDIR)")
			case o.resume != "" && cmd.Flags().Changed("generators"):
				return usageErr("--generators: a resumed run keeps its spec's load.generators")
			case o.resume != "":
				return a.run(cmd.Context(), "", o)
			}
			if cmd.Flags().Changed("generators") {
				// Validated with the spec: load.generators.count names the field.
				o.sets = append(o.sets, fmt.Sprintf("load.generators.count=%d", o.generators))
			}
			return a.run(cmd.Context(), args[0], o)
		},
	}
	cmd.Flags().StringVar(&o.resultsDir, "results", "runs", "directory under which the run directory is created")
	cmd.Flags().StringVar(&o.workloads, "workloads", "", "workload catalogue directory (default: $FAASBENCH_WORKLOADS, then workloads/ beside the binary's directory, then ./workloads)")
	cmd.Flags().BoolVar(&o.noPin, "no-pin", false, "do not pin the local platform and the load generator to separate CPUs")
	cmd.Flags().BoolVar(&o.smoke, "smoke", false, "run the spec reduced to a quick check of every part (1 s cells, 1 repetition, the first and last value of each list; see docs/experiments.md)")
	cmd.Flags().StringArrayVar(&o.sets, "set", nil, "override a spec field before validation, PATH=YAML (e.g. vary.replicas=[1,2,4,8,16], repetitions=10): how an example's scaled-down default is restored to the seed's grid")
	cmd.Flags().IntVar(&o.generators, "generators", 1, "split every cell's load over N generator processes (load.generators.count) and merge their results exactly")
	o.cluster.add(cmd)
	cmd.Flags().StringVar(&o.resume, "resume", "", "resume an interrupted run: the run directory; cells it completed are not run again")
	cmd.Flags().StringVar(&o.metricsListen, "metrics-listen", "", "serve the run's live figures on http://ADDR/metrics in Prometheus' format while it goes (HOST:PORT, or PORT alone on loopback, e.g. 9464)")
	cmd.Flags().StringVar(&o.remoteWrite, "remote-write", "", "send the run's live figures to a Prometheus remote-write endpoint (Remote Write 2.0; the latency as a native histogram), e.g. http://127.0.0.1:9090/api/v1/write")
	cmd.Flags().DurationVar(&o.remoteEvery, "remote-write-every", livemetrics.DefaultRemoteEvery, "how often --remote-write sends")
	cmd.Flags().StringVar(&o.dashboardListen, "dashboard-listen", "", "serve a live web dashboard of the run on http://ADDR/ while it goes: progress, the current cell's rate and latency, replicas, cold starts, then the final summary (HOST:PORT, or PORT alone on loopback, e.g. 9465)")
	cmd.Flags().StringArrayVar(&o.thresholds, "threshold", nil, "a pass/fail criterion every cell must hold, e.g. p99<100ms, p99[10s]<250ms, errors<0.1%, rps>=500, p99<1s:abort (exit 4 when broken)")
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "validate the spec and print the plan as JSON (every cell in run order, with the files it will write); start nothing, write nothing")
	return cmd
}

// runnerOptions are what a run may use: the platforms, the catalogue, and
// where it writes.
func (a *app) runnerOptions(o runOpts) (runner.Options, error) {
	reg, err := a.registry()
	if err != nil {
		return runner.Options{}, err
	}
	root, err := workloads.FindRoot(o.workloads)
	if err != nil {
		return runner.Options{}, withCode(ExitUsage, err)
	}
	cat, err := workloads.Load(root)
	if err != nil {
		return runner.Options{}, withCode(ExitUsage, err)
	}
	ro := runner.Options{Platforms: reg, Catalog: cat, ResultsDir: o.resultsDir, Log: a.env.Stdout, Messages: a.env.Stderr,
		Smoke: o.smoke, NoPin: o.noPin, Tool: observe.Tool{Version: version, Commit: toolCommit()}, PlatformOptions: o.cluster.flagOptions()}
	if a.json() {
		ro.Log = a.env.Stderr
	}
	if isTerminal(a.env.Stderr) && !a.json() {
		ro.Progress = a.env.Stderr
	}
	return ro, nil
}

func (a *app) run(parent context.Context, specPath string, o runOpts) error {
	// Signals first: one that comes while the run directory is being made
	// interrupts the run as one during the load does (exit 130, partial).
	ctx, stop := signal.NotifyContext(parent, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ro, err := a.runnerOptions(o)
	if err != nil {
		return err
	}
	if abort := aborting(o.parsed); len(abort) > 0 {
		ro.AfterCell = func(dir string, c results.Cell) error {
			outs, err := threshold.CheckCell(dir, c, abort)
			if err != nil {
				return err
			}
			if threshold.Broken(outs) > 0 {
				return errors.New(threshold.Lines(outs)[0])
			}
			return nil
		}
	}
	var dash *livedash.Dashboard
	if !o.dryRun {
		var done func()
		if ro.Watch, dash, done, err = a.watchers(o); err != nil {
			return err
		}
		defer done()
	}
	var r *runner.Run
	if o.resume != "" {
		r, err = runner.Resume(o.resume, ro)
	} else {
		var p *spec.Parsed
		if p, err = runner.LoadSpec(specPath, o.sets, ro); err != nil {
			return exitOf(err)
		}
		if o.dryRun {
			return a.printPlan(p.Spec, o.smoke)
		}
		r, err = runner.Open(p, ro)
	}
	if err != nil {
		return exitOf(err)
	}
	runErr := r.Execute(ctx)
	if dash != nil {
		sum := r.Summary()
		dash.Finish(sum.Status, runErr, sum.Cells)
	}
	if a.json() {
		if err := json.NewEncoder(r.Redacted(a.env.Stdout)).Encode(r.Summary()); err != nil {
			runErr = errors.Join(runErr, err)
		}
	}
	return a.checkThresholds(r, o.parsed, exitOf(runErr))
}

// aborting are the thresholds with :abort.
func aborting(ths []threshold.Threshold) []threshold.Threshold {
	var out []threshold.Threshold
	for _, t := range ths {
		if t.Abort {
			out = append(out, t)
		}
	}
	return out
}

// checkThresholds evaluates the thresholds on every cell the run kept,
// prints what broke, writes thresholds.json, and gives the run's error (its
// exit code set): its own when it failed otherwise, ExitGate's when only a
// threshold broke.
func (a *app) checkThresholds(r *runner.Run, ths []threshold.Threshold, runErr error) error {
	if len(ths) == 0 {
		return runErr
	}
	rep, err := threshold.CheckRun(r.Dir(), r.Summary().Cells, ths)
	if err == nil {
		err = (&results.Dir{Path: r.Dir()}).WriteJSON(threshold.FileName, rep)
	}
	if err != nil {
		if runErr != nil {
			return runErr
		}
		return withCode(ExitFailed, fmt.Errorf("thresholds: %w", err))
	}
	fmt.Fprintf(a.env.Stderr, "%s\n", strings.Join(threshold.Lines(rep.Outcomes), "\n"))
	if runErr != nil || rep.Broken == 0 {
		return runErr
	}
	return withCode(ExitGate, fmt.Errorf("%d threshold outcome(s) broken (threshold × cell): %s", rep.Broken, filepath.Join(r.Dir(), threshold.FileName)))
}

// exitOf maps a runner's error to the exit code: 130 interrupted (what was
// measured is kept), 2 bad input (before anything started, or a platform's
// refusal of what the spec asked once it reached it), 3 nothing valid
// measured, 1 anything else (a cell that broke its expectation too).
func exitOf(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, runner.ErrInterrupted):
		return withCode(ExitInterrupted, err)
	case errors.Is(err, runner.ErrAborted):
		return withCode(ExitGate, err)
	case errors.Is(err, runner.ErrInput), errors.Is(err, platform.ErrRefused):
		return withCode(ExitUsage, err)
	case errors.Is(err, runner.ErrNothingValid):
		return withCode(ExitNothing, err)
	}
	return withCode(ExitFailed, err)
}

// printPlan writes the plan of sp as JSON (run --dry-run).
func (a *app) printPlan(sp spec.Spec, smoke bool) error {
	if smoke {
		sp.Smoke()
	}
	cells, err := runner.DryRun(sp, nil)
	if err != nil {
		return exitOf(err)
	}
	out := struct {
		Name    string           `json:"name"`
		Kind    string           `json:"kind"`
		Profile string           `json:"profile"`
		Cells   []runner.Planned `json:"cells"`
	}{Name: sp.Name, Kind: sp.Kind, Profile: "full", Cells: cells}
	if smoke {
		out.Profile = "smoke"
	}
	enc := json.NewEncoder(a.env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// isTerminal reports whether w is a terminal (the progress line is drawn
// only there: logs and pipes get the table alone).
func isTerminal(w io.Writer) bool {
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
