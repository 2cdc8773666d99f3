package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/faasbench/faasbench/internal/redact"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/internal/affinity"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/local"
	"github.com/faasbench/faasbench/platform/packaging"
	"github.com/faasbench/faasbench/report"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
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
	cluster    clusterFlags
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
"partial", tears the platform down and exits 130.`,
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case o.resume != "" && len(args) == 1:
				return usageErr("--resume: give the run directory or a spec, not both")
			case o.resume == "" && len(args) == 0:
				return usageErr("run: want a spec file (or --resume RUNDIR)")
			case o.resume != "":
				return a.run(cmd.Context(), "", o)
			}
			return a.run(cmd.Context(), args[0], o)
		},
	}
	cmd.Flags().StringVar(&o.resultsDir, "results", "runs", "directory under which the run directory is created")
	cmd.Flags().StringVar(&o.workloads, "workloads", "", "workload catalogue directory (default: $FAASBENCH_WORKLOADS, then workloads/ beside the binary's directory, then ./workloads)")
	cmd.Flags().BoolVar(&o.noPin, "no-pin", false, "do not pin the local platform and the load generator to separate CPUs")
	cmd.Flags().BoolVar(&o.smoke, "smoke", false, "run the spec reduced to a quick check of every part (1 s cells, 1 repetition, the first and last value of each list; see docs/experiments.md)")
	cmd.Flags().StringArrayVar(&o.sets, "set", nil, "override a spec field before validation, PATH=YAML (e.g. vary.replicas=[1,2,4,8,16], repetitions=10): how an example's scaled-down default is restored to the seed's grid")
	o.cluster.add(cmd)
	cmd.Flags().StringVar(&o.resume, "resume", "", "resume an interrupted run: the run directory; cells it completed are not run again")
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "validate the spec and print the plan as JSON (every cell in run order, with the files it will write); start nothing, write nothing")
	return cmd
}

func newRunID(name string, now time.Time) string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%s-%s", name, now.UTC().Format("20060102T150405"), hex.EncodeToString(b))
}

// loadSpec parses and validates a spec against the registry and catalogue.
func loadSpec(path string, sets []string, reg *platform.Registry, cat *workloads.Catalog) (*spec.Parsed, error) {
	p, err := spec.ParseFileWithOverrides(path, sets)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	if err := p.Validate(knownOf(reg, cat)); err != nil {
		return nil, withCode(ExitUsage, err)
	}
	return p, nil
}

func knownOf(reg *platform.Registry, cat *workloads.Catalog) spec.Known {
	return spec.Known{Platforms: reg.Names(), Workloads: cat.Names(), Languages: func(w string) ([]string, bool) {
		wl, ok := cat.Get(w)
		if !ok {
			return nil, false
		}
		return wl.Languages, true
	}, Schedule: experiment.CheckSchedule, Function: func(ps spec.PlatformSpec, f spec.FunctionSpec, v spec.Vary) error {
		return checkFunction(ps, f, v, cat.Root)
	}, Functions: func(ps spec.PlatformSpec, fs []spec.FunctionSpec) error {
		return packaging.CheckFunctions(ps.Name, ps.Options, len(fs))
	}, ColdStart: func(ps spec.PlatformSpec, f spec.FunctionSpec, v spec.Vary) error {
		return atEveryPoint(f, v, func(fn platform.Function) error { return packaging.CheckCold(ps.Name, fn, cat.Root) })
	}}
}

// atEveryPoint checks f as the platform will deploy it at every point of
// the vary grid, before anything starts; the error names the point.
func atEveryPoint(f spec.FunctionSpec, v spec.Vary, check func(platform.Function) error) error {
	for _, pt := range plan.Grid(v) {
		fn, _ := experiment.FunctionOf(f, pt, &experiment.Env{Vars: map[string]string{}})
		if err := check(fn); err != nil {
			return fmt.Errorf("%s%s: %w", f.Name, pt, err)
		}
	}
	return nil
}

// checkFunction checks a function's settings as the platform will read
// them, at every point of the vary grid, before anything starts.
func checkFunction(ps spec.PlatformSpec, f spec.FunctionSpec, v spec.Vary, workloadsDir string) error {
	return atEveryPoint(f, v, func(fn platform.Function) error {
		if ps.Name != local.Name {
			return packaging.Check(ps.Name, ps.Options, fn, workloadsDir)
		}
		req, err := local.DeployRequestOf(fn)
		if err == nil {
			err = local.ValidateDeploy(req)
		}
		return err
	})
}

// resumeState reads an interrupted run's directory: its manifest (the
// spec, as run) and the cells it completed.
func resumeState(dir string, reg *platform.Registry, cat *workloads.Catalog) (*spec.Parsed, *results.Manifest, *results.Summary, error) {
	var m results.Manifest
	var sum results.Summary
	for name, v := range map[string]any{"manifest.json": &m, "summary.json": &sum} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, nil, nil, usageErr("--resume: %v", err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			return nil, nil, nil, usageErr("--resume: %s: %v", name, err)
		}
	}
	if m.Status == results.StatusComplete {
		return nil, nil, nil, usageErr("--resume: %s is complete: nothing to resume", dir)
	}
	p := &spec.Parsed{Spec: m.Spec, File: m.SpecFile}
	if err := p.Validate(knownOf(reg, cat)); err != nil {
		return nil, nil, nil, withCode(ExitUsage, err)
	}
	kept := sum.Cells[:0]
	for _, c := range sum.Cells {
		if !c.Interrupted {
			kept = append(kept, c)
		}
	}
	sum.Cells = kept
	return p, &m, &sum, nil
}

// cpuSplit decides which CPUs the platform and the generator get.
func cpuSplit(ps spec.PlatformSpec, noPin bool) (plat, gen []int, err error) {
	if noPin {
		return nil, nil, nil
	}
	if ps.Name != local.Name {
		// The platform runs on its cluster: the generator may use every
		// CPU here, unless told otherwise.
		if ps.GeneratorCPUs != "" {
			if gen, err = affinity.Parse(ps.GeneratorCPUs); err != nil {
				return nil, nil, usageErr("platform.generator_cpus: %v", err)
			}
		}
		return nil, gen, onlineCPUs("platform.generator_cpus", gen)
	}
	online, err := affinity.Online()
	if err != nil {
		return nil, nil, err
	}
	plat, gen = affinity.Split(online)
	if ps.CPUs != "" {
		if plat, err = affinity.Parse(ps.CPUs); err != nil {
			return nil, nil, usageErr("platform.cpus: %v", err)
		}
	}
	if ps.GeneratorCPUs != "" {
		if gen, err = affinity.Parse(ps.GeneratorCPUs); err != nil {
			return nil, nil, usageErr("platform.generator_cpus: %v", err)
		}
	}
	return plat, gen, errors.Join(onlineCPUs("platform.cpus", plat), onlineCPUs("platform.generator_cpus", gen))
}

// onlineCPUs refuses CPUs this machine does not have online (exit 2).
func onlineCPUs(field string, cpus []int) error {
	online, err := affinity.Online()
	if err != nil || len(cpus) == 0 {
		return nil
	}
	for _, c := range cpus {
		if !slices.Contains(online, c) {
			return usageErr("%s: CPU %d is not online here (online: %s)", field, c, affinity.Format(online))
		}
	}
	return nil
}

func (a *app) run(parent context.Context, specPath string, o runOpts) (err error) {
	reg, err := a.registry()
	if err != nil {
		return err
	}
	root, err := workloads.FindRoot(o.workloads)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	cat, err := workloads.Load(root)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	var parsed *spec.Parsed
	var prevManifest *results.Manifest
	var prevSummary *results.Summary
	if o.resume != "" {
		if parsed, prevManifest, prevSummary, err = resumeState(o.resume, reg, cat); err != nil {
			return err
		}
		specPath = prevManifest.SpecFile
	} else if parsed, err = loadSpec(specPath, o.sets, reg, cat); err != nil {
		return err
	}
	sp := parsed.Spec
	if o.smoke {
		sp.Smoke()
	}
	if o.dryRun {
		return a.printPlan(sp, o.smoke)
	}
	// What the user gave as secrets (${VAR} in functions[].env), and what
	// looks like one in faasbench's environment, never reaches a file of the
	// run, its output or its error.
	secrets := redact.FromEnv(os.Environ(), sp.EnvRefs()...)
	defer func() { err = secrets.Err(err) }()
	ra := *a
	ra.env.Stdout, ra.env.Stderr = secrets.Writer(a.env.Stdout), secrets.Writer(a.env.Stderr)
	a = &ra
	platCPUs, genCPUs, err := cpuSplit(sp.Platform, o.noPin)
	if err != nil {
		return err
	}
	cells := plan.Expand(sp)

	start := time.Now()
	runID := newRunID(sp.Name, start)
	var dir *results.Dir
	done := map[string]bool{}
	if prevSummary != nil {
		dir = &results.Dir{Path: o.resume}
		runID = prevManifest.RunID
		for _, c := range prevSummary.Cells {
			done[c.ID] = true
		}
	} else if dir, err = results.Create(o.resultsDir, sp.Name, start); err != nil {
		return err
	}
	dir.Redact = secrets
	// One writer per run directory: a --resume of a run still going is refused.
	unlock, err := dir.Lock()
	if errors.Is(err, results.ErrInUse) {
		return withCode(ExitUsage, err)
	} else if err != nil {
		return err
	}
	defer unlock()
	// Space for the final manifest, summary and report on a disk the run
	// fills (finish gives it back first).
	release, rerr := dir.Reserve(results.ReserveSize)
	if rerr != nil {
		fmt.Fprintf(a.env.Stderr, "warning: %v: a full disk may leave the final report unwritten\n", rerr)
	}
	defer release()
	stderr := a.env.Stderr
	fmt.Fprintf(stderr, "run %s: %d cells (%d done before), results in %s\n", runID, len(cells), len(done), dir.Path)

	ctx, stop := signal.NotifyContext(parent, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	if len(genCPUs) > 0 {
		if err := affinity.PinProcess(genCPUs); err != nil {
			return err
		}
		prev := runtime.GOMAXPROCS(len(genCPUs))
		defer runtime.GOMAXPROCS(prev)
	}
	absSpec, _ := filepath.Abs(specPath)
	m := &results.Manifest{SchemaVersion: results.SchemaVersion, RunID: runID, SpecFile: absSpec, Spec: sp, Plan: cells,
		Fingerprint: observe.Take(ctx, observe.Tool{Version: version, Commit: commit}),
		CPUs:        results.CPUSplit{Platform: affinity.Format(platCPUs), Generator: affinity.Format(genCPUs)},
		Start:       start.UTC(), Status: results.StatusRunning}
	if len(platCPUs) > 0 && len(genCPUs) > 0 && overlaps(platCPUs, genCPUs) {
		m.Warnings = append(m.Warnings, "the platform and the load generator share CPUs "+affinity.Format(platCPUs)+": each measures the other")
	}
	m.Profile = "full"
	if o.smoke {
		m.Profile = "smoke"
	}
	sum := &results.Summary{SchemaVersion: results.SchemaVersion, RunID: runID, Name: sp.Name, Platform: sp.Platform.Name, Status: results.StatusRunning, Cells: []results.Cell{}}
	if prevSummary != nil {
		m.Start, m.Profile, m.Resumed = prevManifest.Start, prevManifest.Profile, append(prevManifest.Resumed, start.UTC())
		m.Warnings = append(prevManifest.Warnings, m.Warnings...)
		sum = prevSummary
		sum.Status = results.StatusRunning
	}
	if err := dir.WriteJSON("manifest.json", m); err != nil {
		return err
	}
	if err := dir.WriteJSON("summary.json", sum); err != nil {
		return err
	}

	opts := o.cluster.options(sp.Platform)
	opts["cpus"] = platCPUs
	runErr := a.execute(ctx, reg, sp, filepath.Dir(absSpec), cells, done, dir, sum, m, root, runID, opts)
	return a.finish(dir, m, sum, runErr, release)
}

func overlaps(a, b []int) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// closeBudget bounds tearing a platform down: a Knative revision's pod drains (queue-proxy) for
// about 30 s before it ends, and its owners go only after it (30 s was too short on real Knative).
const closeBudget = 4 * time.Minute

// execute starts the platform, runs the sweep and always tears the platform down.
func (a *app) execute(ctx context.Context, reg *platform.Registry, sp spec.Spec, specDir string, cells []plan.Cell, done map[string]bool, dir *results.Dir,
	sum *results.Summary, m *results.Manifest, root, runID string, opts map[string]any) (err error) {
	platCPUs, _ := opts["cpus"].([]int)
	p, err := reg.New(ctx, sp.Platform.Name, platform.Config{RunID: runID, WorkloadsDir: root,
		WorkDir: dir.File("platform"), Options: opts})
	if err != nil {
		if ctx.Err() != nil {
			return experiment.ErrInterrupted
		}
		return err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), closeBudget)
		defer cancel()
		if cerr := p.Close(closeCtx); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if fp, ok := p.(platform.Fingerprinter); ok {
		if info, ferr := fp.Fingerprint(ctx); ferr == nil {
			m.Platform = info
		}
	}
	if w, ok := p.(interface{ Warnings() []string }); ok {
		opened := len(w.Warnings())
		m.Warnings = append(m.Warnings, w.Warnings()...)
		for _, s := range w.Warnings() {
			fmt.Fprintln(a.env.Stderr, "warning:", s)
		}
		// What the platform learnt while deploying (an OpenFaaS limit that answers 429 at once)
		// belongs to the run's record as much as what it knew when it opened.
		defer func() {
			if later := w.Warnings(); len(later) > opened {
				m.Warnings = append(m.Warnings, later[opened:]...)
			}
		}()
	}
	log := a.env.Stdout
	if a.json() {
		log = a.env.Stderr
	}
	cat, err := workloads.Load(root)
	if err != nil {
		return err
	}
	env, err := experiment.Prepare(ctx, sp, experiment.DataCacheDir())
	if err != nil {
		return err
	}
	defer env.Close()
	sw := &experiment.Sweep{Env: env, Platform: p, Catalog: cat, Dir: dir, Summary: sum, Log: log, SpecDir: specDir, Done: done,
		PlatformCores: len(platCPUs)}
	if isTerminal(a.env.Stderr) && !a.json() {
		sw.Progress = a.env.Stderr
	}
	return sw.Run(ctx, sp, cells)
}

// finish writes the final manifest, summary and report, and maps the outcome
// to an exit code.
// release gives back the run's reserved disk space first.
func (a *app) finish(dir *results.Dir, m *results.Manifest, sum *results.Summary, runErr error, release func()) error {
	release()
	end := time.Now().UTC()
	m.End = &end
	interrupted := errors.Is(runErr, experiment.ErrInterrupted)
	switch {
	case runErr == nil:
		m.Status = results.StatusComplete
	case len(sum.Cells) > 0 || interrupted:
		m.Status = results.StatusPartial
	default:
		m.Status = results.StatusFailed
	}
	if runErr != nil {
		m.Error = runErr.Error()
	}
	sum.Status = m.Status
	for _, c := range sum.Cells {
		if !c.Valid {
			m.Warnings = append(m.Warnings, fmt.Sprintf("cell %s is not valid: %v", c.ID, c.Warnings))
		}
	}
	werr := errors.Join(dir.WriteJSON("summary.json", sum), dir.WriteJSON("manifest.json", m), writeReport(dir))
	if a.json() {
		if err := json.NewEncoder(a.env.Stdout).Encode(sum); err != nil {
			werr = errors.Join(werr, err)
		}
	}
	fmt.Fprintf(a.env.Stderr, "\nrun %s: %s; %d cells measured\n  %s\n  %s\n", m.RunID, m.Status, len(sum.Cells),
		dir.File("summary.json"), dir.File("report.html"))
	switch {
	case interrupted:
		return withCode(ExitInterrupted, errors.Join(runErr, werr))
	case errors.Is(runErr, platform.ErrRefused):
		// The platform refused what the spec asked once it reached it (a webhook, a gateway's
		// validation): bad input found late, exit 2; what was measured before is kept.
		return withCode(ExitUsage, errors.Join(runErr, werr))
	case runErr != nil:
		return withCode(ExitFailed, errors.Join(runErr, werr))
	default:
		return werr
	}
}

func writeReport(dir *results.Dir) error {
	run, err := report.Load(dir.Path)
	if err != nil {
		return err
	}
	for _, out := range []struct {
		name   string
		render func(w io.Writer) error
	}{
		{"report.html", func(w io.Writer) error { return report.HTML(w, []report.Run{run}) }},
		{"summary.md", func(w io.Writer) error { return report.Markdown(w, []report.Run{run}) }},
	} {
		// Rendered whole, then written atomically (and redacted): a full disk
		// leaves the previous file, never a truncated one.
		var buf bytes.Buffer
		if err := out.render(&buf); err != nil {
			return fmt.Errorf("report: %s: %w", out.name, err)
		}
		if err := dir.WriteFile(out.name, buf.Bytes()); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	_, _, err = report.WriteFigures(dir.File("figures"), []report.Run{run})
	return err
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

// plannedCell is a cell of a dry run's plan, with the files it will write
// under the run directory.
type plannedCell struct {
	plan.Cell
	Files []string `json:"files"`
}

// printPlan writes the plan of sp as JSON (run --dry-run).
func (a *app) printPlan(sp spec.Spec, smoke bool) error {
	out := struct {
		Name    string        `json:"name"`
		Kind    string        `json:"kind"`
		Profile string        `json:"profile"`
		Cells   []plannedCell `json:"cells"`
	}{Name: sp.Name, Kind: sp.Kind, Profile: "full", Cells: []plannedCell{}}
	if smoke {
		out.Profile = "smoke"
	}
	for _, c := range plan.Expand(sp) {
		files := []string{}
		if _, idle := c.Params.Get("idle"); !idle {
			files = append(files, "hlog/"+results.HlogName(c.ID))
		}
		if sp.Load.Records && (c.Kind == spec.KindSweep || c.Kind == spec.KindBaseline) {
			files = append(files, "records/"+results.RecordsName(c.ID))
		}
		out.Cells = append(out.Cells, plannedCell{Cell: c, Files: files})
	}
	enc := json.NewEncoder(a.env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
