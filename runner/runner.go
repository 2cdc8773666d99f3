// Package runner owns an experiment run: it opens (or resumes) the run
// directory, expands the spec's plan through its experiment kind, starts
// the platform, deploys the functions, drives every cell through the kind,
// keeps the summary current after each cell, and ends the run with the
// final manifest, summary and report. The CLI parses flags, calls it and
// prints; a Go program can do the same (docs/library.md).
package runner

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/internal/affinity"
	"github.com/faasbench/faasbench/internal/redact"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
	"github.com/faasbench/faasbench/workloads"
)

// Options say what a run may use and where it writes.
type Options struct {
	// Platforms make the spec's platform (required).
	Platforms *platform.Registry
	// Catalog is the workload catalogue (required).
	Catalog *workloads.Catalog
	// Kinds make the spec's experiment kind (nil: experiment.Builtin()).
	Kinds *experiment.Registry
	// Driver sends each cell's load (nil: this process, or the spec's
	// load.generators).
	Driver experiment.Driver
	// ResultsDir is where a new run directory is created (default "runs").
	ResultsDir string
	// Log receives a line per deploy and a table row per cell; Messages the
	// warnings and the run's first and last lines (nil: discarded). What
	// looks like a secret is masked in both.
	Log, Messages io.Writer
	// Progress, if set, receives a live status line about twice a second.
	Progress io.Writer
	// Smoke runs the spec reduced to a quick check of every part (spec.Smoke).
	Smoke bool
	// NoPin leaves the platform and the generator unpinned (by default the
	// local platform and the generator get CPUs of their own).
	NoPin bool
	// PlatformOptions are given to the platform's factory over the spec's
	// platform.options (the CLI's --kubeconfig, --context, --namespace).
	PlatformOptions map[string]any
	// Tool is faasbench's version, for the fingerprint.
	Tool observe.Tool
	// Environ is the environment secrets are taken from (nil: os.Environ()).
	Environ []string
	// AfterCell, if set, is called with each cell as it is kept (and the
	// run directory); an error stops the run there (ErrAborted): the cells
	// measured are kept, the run is partial, the platform is torn down.
	AfterCell func(dir string, c results.Cell) error
	// Watch, if set, follows the run live (run --metrics-listen).
	Watch Watcher
}

func (o Options) kinds() *experiment.Registry {
	if o.Kinds != nil {
		return o.Kinds
	}
	return experiment.Builtin()
}

// Run is an open run directory with its plan.
type Run struct {
	o        Options
	sp       spec.Spec
	specDir  string
	kind     experiment.Kind
	cells    []plan.Cell
	done     map[string]bool
	dir      *results.Dir
	m        *results.Manifest
	sum      *results.Summary
	log      *decisionLog
	secrets  *redact.Set
	platCPUs []int
	genCPUs  []int
	unlock   func()
	release  func()
}

// NewRunID names a run: its name, the UTC time and a random suffix.
func NewRunID(name string, now time.Time) string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%s-%s", name, now.UTC().Format("20060102T150405"), hex.EncodeToString(b))
}

// Open starts a new run of a validated spec: the run directory under
// o.ResultsDir (locked: one writer), its manifest and an empty summary.
// Nothing is started until Execute.
func Open(p *spec.Parsed, o Options) (*Run, error) {
	sp := p.Spec
	if o.Smoke {
		sp.Smoke()
	}
	r, err := newRun(sp, p.File, o)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	resultsDir := o.ResultsDir
	if resultsDir == "" {
		resultsDir = "runs"
	}
	dir, err := results.Create(resultsDir, sp.Name, start)
	if err != nil {
		return nil, err
	}
	absSpec := ""
	if p.File != "" {
		absSpec, _ = filepath.Abs(p.File)
	}
	m := &results.Manifest{SchemaVersion: results.SchemaVersion, RunID: NewRunID(sp.Name, start), SpecFile: absSpec, Spec: sp, Plan: r.cells,
		Start: start.UTC(), Status: results.StatusRunning, Profile: "full"}
	if o.Smoke {
		m.Profile = "smoke"
	}
	sum := &results.Summary{SchemaVersion: results.SchemaVersion, RunID: m.RunID, Name: sp.Name, Platform: sp.Platform.Name, Status: results.StatusRunning, Cells: []results.Cell{}}
	return r, r.begin(dir, m, sum, nil)
}

// newRun is what Open and Resume share: the kind, the plan, the secrets
// and the CPU split.
func newRun(sp spec.Spec, specFile string, o Options) (*Run, error) {
	if o.Platforms == nil || o.Catalog == nil {
		return nil, fmt.Errorf("runner: Options.Platforms and Options.Catalog are required")
	}
	kind, err := o.kinds().New(sp)
	if err != nil {
		return nil, inputErr(err)
	}
	environ := o.Environ
	if environ == nil {
		environ = os.Environ()
	}
	// What the user gave as secrets (${VAR} in functions[].env), and what
	// looks like one in faasbench's environment, never reaches a file of the
	// run, its output or its error.
	secrets := redact.FromEnv(environ, sp.EnvRefs()...)
	r := &Run{o: o, sp: sp, kind: kind, cells: experiment.Plan(sp, kind), done: map[string]bool{}, secrets: secrets,
		unlock: func() {}, release: func() {}}
	if specFile != "" {
		abs, _ := filepath.Abs(specFile)
		r.specDir = filepath.Dir(abs)
	}
	r.o.Log, r.o.Messages = secrets.Writer(orDiscard(o.Log)), secrets.Writer(orDiscard(o.Messages))
	if o.Progress != nil {
		r.o.Progress = secrets.Writer(o.Progress)
	}
	if r.platCPUs, r.genCPUs, err = cpuSplit(sp.Platform, o.NoPin); err != nil {
		return nil, err
	}
	return r, nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// begin takes the run directory: its lock, its reserve of disk space, and
// the first manifest and summary.
func (r *Run) begin(dir *results.Dir, m *results.Manifest, sum *results.Summary, decisions []experiment.Decision) error {
	dir.Redact = r.secrets
	unlock, err := dir.Lock()
	if err != nil {
		if errors.Is(err, results.ErrInUse) {
			err = inputErr(err)
		}
		return err
	}
	r.dir, r.m, r.sum, r.unlock = dir, m, sum, unlock
	m.CPUs = results.CPUSplit{Platform: affinity.Format(r.platCPUs), Generator: affinity.Format(r.genCPUs)}
	// Space for the final manifest, summary and report on a disk the run
	// fills (finish gives it back first).
	release, rerr := dir.Reserve(results.ReserveSize)
	if rerr != nil {
		fmt.Fprintf(r.o.Messages, "warning: %v: a full disk may leave the final report unwritten\n", rerr)
	}
	r.release = release
	if len(r.platCPUs) > 0 && len(r.genCPUs) > 0 && overlaps(r.platCPUs, r.genCPUs) {
		m.Warnings = append(m.Warnings, "the platform and the load generator share CPUs "+affinity.Format(r.platCPUs)+": each measures the other")
	}
	if r.log, err = openDecisions(dir, r.cells, decisions); err != nil {
		r.Close()
		return err
	}
	r.cells = r.log.plan
	m.Plan = r.cells
	for _, c := range sum.Cells {
		r.done[c.ID] = true
	}
	if err := dir.WriteJSON("manifest.json", m); err != nil {
		r.Close()
		return err
	}
	if err := dir.WriteJSON("summary.json", sum); err != nil {
		r.Close()
		return err
	}
	return nil
}

// Close gives back the run directory's lock and reserved space (Execute
// has written the final files by then); safe to call twice.
func (r *Run) Close() {
	r.release()
	r.unlock()
	r.release, r.unlock = func() {}, func() {}
}

// Dir is the run directory.
func (r *Run) Dir() string { return r.dir.Path }

// ID is the run's ID.
func (r *Run) ID() string { return r.m.RunID }

// Plan is the run's cells in order (with the cells adaptive kinds added
// so far).
func (r *Run) Plan() []plan.Cell { return r.cells }

// Summary is the run's figures so far (all of them after Execute).
func (r *Run) Summary() *results.Summary { return r.sum }

// Manifest is the run's manifest as last written.
func (r *Run) Manifest() *results.Manifest { return r.m }

// Redacted masks the run's secrets in what is written to w.
func (r *Run) Redacted(w io.Writer) io.Writer { return r.secrets.Writer(w) }
