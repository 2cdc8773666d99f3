// Package results writes and reads the run directory: manifest.json,
// summary.json (versioned, with a JSON Schema) and the report. Files are
// replaced atomically after every cell, so an interrupted run keeps what it
// measured.
package results

import (
	"encoding/json"
	"fmt"
	"github.com/faasbench/faasbench/internal/redact"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/spec"
	"github.com/faasbench/faasbench/stats"
)

// SchemaVersion is the version of manifest.json and summary.json.
const SchemaVersion = "2"

// Run statuses.
const (
	StatusRunning  = "running"
	StatusComplete = "complete"
	StatusPartial  = "partial"
	StatusFailed   = "failed"
)

// CPUSplit records which CPUs the platform and the generator were given.
type CPUSplit struct {
	Platform  string `json:"platform"`
	Generator string `json:"generator"`
}

// Manifest says what was run, where, and how it ended.
type Manifest struct {
	SchemaVersion string              `json:"schema_version"`
	RunID         string              `json:"run_id"`
	SpecFile      string              `json:"spec_file"`
	Spec          spec.Spec           `json:"spec"`
	Plan          []plan.Cell         `json:"plan"`
	Fingerprint   observe.Fingerprint `json:"fingerprint"`
	Platform      map[string]any      `json:"platform,omitempty"`
	CPUs          CPUSplit            `json:"cpus"`
	Start         time.Time           `json:"start"`
	End           *time.Time          `json:"end,omitempty"`
	Status        string              `json:"status"`
	Error         string              `json:"error,omitempty"`
	Warnings      []string            `json:"warnings,omitempty"`
	// Profile is full, or smoke (faasbench run --smoke: a reduced check).
	Profile string `json:"profile,omitempty"`
	// Resumed lists when an interrupted run was resumed (run --resume).
	Resumed []time.Time `json:"resumed,omitempty"`
	// Resets are what was reset between repetitions (spec between_repetitions).
	Resets []Reset `json:"resets,omitempty"`
	// Probes are the requests sent to each function before its first
	// cell, to check that the function itself answers (experiment.Probe).
	Probes []Probe `json:"probes,omitempty"`
}

// Warmup is an adaptive warm-up's outcome: how long it ran and whether the
// load was steady when the measured part began, and why.
type Warmup struct {
	Seconds float64 `json:"seconds"`
	Steady  bool    `json:"steady"`
	Reason  string  `json:"reason"`
}

// Reset is one reset between repetitions: the functions removed (to be
// deployed again), and the platform's components restarted at level restart.
type Reset struct {
	BeforeRepetition int       `json:"before_repetition"`
	Level            string    `json:"level"`
	What             string    `json:"what"`
	At               time.Time `json:"at"`
	TookS            float64   `json:"took_s"`
}

// Summary holds the figures of every cell measured so far.
type Summary struct {
	SchemaVersion string `json:"schema_version"`
	RunID         string `json:"run_id"`
	Name          string `json:"name"`
	Platform      string `json:"platform"`
	Status        string `json:"status"`
	Cells         []Cell `json:"cells"`
	// Keys are the grid points pooled over their repetitions, with the
	// headline intervals (schema 2; written when the run ends).
	Keys []Key `json:"keys,omitempty"`
	// Until is how adaptive repetitions ended (spec until).
	Until *UntilOutcome `json:"until,omitempty"`
	// IdleFootprint is the platform's own components' use with the
	// functions deployed and no load (platform.idle_window).
	IdleFootprint *Footprint `json:"idle_footprint,omitempty"`
}

// Requests counts requests by fate. Total = Succeeded + Failed; Aborted
// requests (in flight at an interrupt) are not in Total. CutAtEnd are
// requests still in flight when the cell's grace after its duration was
// over (load.grace): they are in Total and Failed, as timeouts.
type Requests struct {
	Total     int64 `json:"total"`
	Succeeded int64 `json:"succeeded"`
	Failed    int64 `json:"failed"`
	Aborted   int64 `json:"aborted"`
	CutAtEnd  int64 `json:"cut_at_end,omitempty"`
}

// Window is one second of a cell.
type Window struct {
	Second int `json:"second"`
	// Offered is what the open-loop schedule asked for in this second (0 in
	// a closed loop); Sent what was sent; InFlight what was in flight at the
	// second's end (sent so far minus completed so far).
	Offered   int64    `json:"offered"`
	Sent      int64    `json:"sent"`
	InFlight  int64    `json:"in_flight"`
	Completed int64    `json:"completed"`
	Succeeded int64    `json:"succeeded"`
	Failed    int64    `json:"failed"`
	P50Ms     *float64 `json:"p50_ms"`
	P99Ms     *float64 `json:"p99_ms"`
	// MaxMs is the second's worst time (any class; absent when nothing
	// completed): seed 000's worst time per second.
	MaxMs *float64 `json:"max_ms,omitempty"`
	// Errors counts failed requests by class.
	Errors map[string]int64 `json:"errors"`
	// GeneratorCPU is the load generator's CPU use in cores; Steal the share
	// of the machine's CPU time the hypervisor took.
	GeneratorCPU float64 `json:"generator_cpu"`
	Steal        float64 `json:"steal"`
}

// Probe is one function's probe: one request before its first cell.
type Probe struct {
	Function  string  `json:"function"`
	Status    int     `json:"status,omitempty"`
	LatencyMs float64 `json:"latency_ms,omitempty"`
	Instance  string  `json:"instance,omitempty"`
	// Error says why the function's answer was not its own (empty: it was).
	Error string `json:"error,omitempty"`
}

// Expectation is what a cell had to show to count as measured, and
// whether it did: a cell whose expectation did not hold fails the run.
type Expectation struct {
	Rule string `json:"rule"`
	Held bool   `json:"held"`
	// Why says what broke it, in figures (empty when it held).
	Why string `json:"why,omitempty"`
}

// Cell is the figures of one cell (one load run).
type Cell struct {
	plan.Cell
	Platform  string    `json:"platform"`
	Model     string    `json:"model"`
	StartedAt time.Time `json:"started_at"`
	ElapsedS  float64   `json:"elapsed_s"`
	Requests  Requests  `json:"requests"`
	// Errors counts failed requests per class (the denominator of an error
	// rate is Requests.Total).
	Errors map[string]int64 `json:"errors"`
	// ThroughputRPS is successful requests per second of ElapsedS.
	ThroughputRPS float64 `json:"throughput_rps"`
	// LatencyMs covers every request whatever its outcome; SuccessLatencyMs
	// only class ok; LatencyByClassMs each class apart.
	LatencyMs        stats.Percentiles            `json:"latency_ms"`
	SuccessLatencyMs stats.Percentiles            `json:"success_latency_ms"`
	LatencyByClassMs map[string]stats.Percentiles `json:"latency_by_class_ms"`
	// HandlerMs is what the function reported; OverheadMs is client latency
	// minus handler time (network, gateway, queueing), successes only.
	HandlerMs  stats.Percentiles `json:"handler_ms"`
	OverheadMs stats.Percentiles `json:"overhead_ms"`
	// ReportedMs are times the function measured inside itself and
	// reported (X-Fb-Phases), per name, successes only: seed 002's
	// MapReduce mapper, reducer and phase times.
	ReportedMs map[string]stats.Percentiles `json:"reported_ms,omitempty"`
	// ServiceLatencyMs is latency from the actual send (uncorrected), all
	// requests; in a closed loop it equals LatencyMs.
	ServiceLatencyMs stats.Percentiles `json:"service_latency_ms"`
	// GeneratorLagMs is actual minus intended send time.
	GeneratorLagMs stats.Percentiles `json:"generator_lag_ms"`
	// OfferedRPS is what the schedule asked for (open loop; 0 in a closed
	// loop); SentRPS is what was sent, both per second of the schedule.
	OfferedRPS  float64          `json:"offered_rps"`
	SentRPS     float64          `json:"sent_rps"`
	ColdStarts  int64            `json:"cold_starts"`
	ColdKinds   map[string]int64 `json:"cold_kinds"`
	Instances   map[string]int64 `json:"instances"`
	BytesIn     int64            `json:"bytes_in"`
	BytesOut    int64            `json:"bytes_out"`
	Windows     []Window         `json:"windows"`
	Interrupted bool             `json:"interrupted"`
	// Behind says why the open loop stopped itself, behind its schedule
	// (load.abort_when_behind); the cell is then interrupted too.
	Behind string `json:"behind,omitempty"`
	Valid  bool   `json:"valid"`
	// Stolen: in some second the hypervisor stole more CPU time than the
	// threshold (load.Thresholds.MaxSteal); an invalid cell so marked is
	// measured again (spec steal_retries).
	Stolen bool `json:"stolen,omitempty"`
	// Discarded are the earlier measurements of this cell the runner
	// dropped because the hypervisor stole CPU time, each with its reasons.
	Discarded []string `json:"discarded,omitempty"`
	// Statuses counts the requests answered with each HTTP status.
	Statuses map[string]int64 `json:"statuses,omitempty"`
	// Drain is the wait after the cell for the platform to finish the
	// invocations it went on running after their replies (platform.Drainer:
	// OpenWhisk), nil on platforms that do not.
	Drain *Drain `json:"drain,omitempty"`
	// Expect is the cell's expectation (spec expect) and whether it held.
	Expect   *Expectation `json:"expect,omitempty"`
	Warnings []string     `json:"warnings"`
	// DataPath is what the platform said its data path was (platform.PathReporter: Knative's
	// activator in the path or not), or that the cell called an instance directly.
	DataPath string `json:"data_path,omitempty"`
	// Kind-specific figures (batch, coldstart, autoscale cells).
	Batch   *BatchResult   `json:"batch,omitempty"`
	Cold    *ColdResult    `json:"cold,omitempty"`
	Scaling *ScalingResult `json:"scaling,omitempty"`
	// Breakdown of the successes' mean latency (when the gateway stamps).
	Breakdown *Breakdown `json:"breakdown,omitempty"`
	// Efficiency is what the cell's successful invocations cost in
	// resources (and money, with the spec's price model).
	Efficiency *Efficiency `json:"efficiency,omitempty"`
	// Warmup is what an adaptive warm-up (load.warmup_max) did.
	Warmup *Warmup `json:"warmup,omitempty"`
	// PlatformFootprint is the platform's own components' use under the
	// cell's load (platforms that report it).
	PlatformFootprint *Footprint `json:"platform_footprint,omitempty"`
	// Capacity is kind capacity's step: its rate, verdict and goodput.
	Capacity *CapacityStep `json:"capacity,omitempty"`
	// ColdRate is kind coldrate's step: its rate of new cold starts, how
	// many completed a second, and whether the rate was sustained.
	ColdRate *ColdRateStep `json:"coldrate,omitempty"`
	// Trace is kind trace's replay: its functions' totals, gap and
	// slowdown (per function: the file it names).
	Trace *TraceReplay `json:"trace,omitempty"`
	// Generators are the processes a split load ran on (load.generators).
	Generators []Generator `json:"generators,omitempty"`
	// Partial: a generator's share is missing; the figures are what arrived.
	Partial bool `json:"partial,omitempty"`
}

// Dir is a run directory.
type Dir struct {
	Path string
	// Redact, when set, masks known secret values in everything WriteFile
	// writes (a platform's error body may echo a password).
	Redact *redact.Set
}

// Create makes root/<name>-<UTC timestamp>/ (with a suffix if it exists),
// closed to other users (mode 0700): error bodies, logs and settings of a
// run are its owner's; share a report by copying it.
func Create(root, name string, now time.Time) (*Dir, error) {
	base := filepath.Join(root, name+"-"+now.UTC().Format("20060102-150405"))
	path := base
	for i := 2; ; i++ {
		err := os.MkdirAll(filepath.Dir(path), 0o755)
		if err == nil {
			err = os.Mkdir(path, 0o700)
		}
		if err == nil {
			return &Dir{Path: path}, nil
		}
		if !os.IsExist(err) || i > 100 {
			return nil, fmt.Errorf("results: %w", err)
		}
		path = fmt.Sprintf("%s-%d", base, i)
	}
}

// Open returns the run directory at path (it must hold a summary.json).
func Open(path string) (*Dir, error) {
	if _, err := os.Stat(filepath.Join(path, "summary.json")); err != nil {
		return nil, fmt.Errorf("results: %s is not a run directory: %w", path, err)
	}
	return &Dir{Path: path}, nil
}

// File is the path of a file in the directory.
func (d *Dir) File(name string) string { return filepath.Join(d.Path, name) }

// WriteJSON replaces name with v, atomically.
func (d *Dir) WriteJSON(name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("results: %s: %w", name, err)
	}
	return d.WriteFile(name, append(b, '\n'))
}

// WriteFile replaces name (a path under the directory: hlog/x.hlog) with
// b, atomically (write, sync, rename): a full disk or a crash leaves the
// previous file or none, never a truncated one. Everything goes through the
// directory's root: a link planted at name or on its way is never written
// through (the rename replaces a link at name itself).
func (d *Dir) WriteFile(name string, b []byte) error {
	r, err := d.root()
	if err != nil {
		return err
	}
	defer r.Close()
	tmp, tmpName, err := d.createTemp(r, name)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		tmp.Close()
		r.Remove(tmpName)
		return fmt.Errorf("results: %s: %w", name, err)
	}
	if strings.HasSuffix(name, ".json") {
		b = d.Redact.JSON(b)
	} else {
		b = d.Redact.Bytes(b)
	}
	if _, err := tmp.Write(b); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		r.Remove(tmpName)
		return fmt.Errorf("results: %s: %w", name, err)
	}
	if err := r.Rename(tmpName, name); err != nil {
		r.Remove(tmpName)
		return fmt.Errorf("results: %s: %w", name, err)
	}
	return nil
}

// ReadJSON decodes name into v (read through ReadFile: inside the
// directory, a regular file, bounded).
func (d *Dir) ReadJSON(name string, v any) error {
	b, err := d.ReadFile(name, 0)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("results: %s: %w", name, err)
	}
	return nil
}

// HlogName is the file of a cell's latency histograms (HdrHistogram log
// format) under the run directory's hlog/.
func HlogName(cellID string) string {
	return strings.NewReplacer("/", "_", "=", "", "?", "", "&", "_").Replace(cellID) + ".hlog"
}

// WindowsName is the file of a cell's per-second latency buckets (JSON,
// stats.Buckets) under the run directory's windows/: the second level of
// the headline interval's bootstrap.
func WindowsName(cellID string) string {
	return strings.TrimSuffix(HlogName(cellID), ".hlog") + ".json"
}

// RecordsName is the file of a cell's per-request records (Parquet) under
// the run directory's records/.
func RecordsName(cellID string) string {
	return strings.NewReplacer("/", "_", "=", "").Replace(cellID) + ".parquet"
}
