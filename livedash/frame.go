package livedash

import (
	"sort"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
)

// Frame is the run as it stands at one tick: the plan's progress, the
// current cell's counts and its last tick's rate and latency, and each
// function's replicas and resources at the timeline's last sample.
type Frame struct {
	// TMs is milliseconds since the run began (RunStarted).
	TMs        int64   `json:"t_ms"`
	Run        string  `json:"run"`
	Name       string  `json:"name"`
	Platform   string  `json:"platform"`
	CellsDone  int     `json:"cells_done"`
	CellsTotal int     `json:"cells_total"`
	Cell       *Now    `json:"cell,omitempty"`
	Functions  []FnNow `json:"functions,omitempty"`
}

// Now is the current cell's load so far.
type Now struct {
	ID          string  `json:"id"`
	Function    string  `json:"function"`
	Concurrency int     `json:"concurrency,omitempty"`
	OfferedRPS  float64 `json:"offered_rps,omitempty"`
	// Measurement is 1, or which measurement of the cell this is when it
	// is measured again (the hypervisor stole CPU time in the one before:
	// its counts start again from zero; runner.AgainWatcher).
	Measurement int     `json:"measurement"`
	ElapsedS    float64 `json:"elapsed_s"`
	OK          int64   `json:"ok"`
	Failed      int64   `json:"failed"`
	// Errors are the failed requests by class (the load engine's classes).
	Errors map[string]int64 `json:"errors,omitempty"`
	Cold   int64            `json:"cold_starts"`
	// InFlight are the requests sent and not answered yet; Behind and LagMs
	// how many an open loop's schedule had due and not sent, and how late
	// the next is.
	// ColdByKind are the cold starts by kind with their mean phases.
	ColdByKind map[string]ColdNow `json:"cold_by_kind,omitempty"`
	InFlight   int64              `json:"in_flight"`
	Behind     int64              `json:"behind"`
	LagMs      float64            `json:"lag_ms"`
	// RPS, P50Ms and P99Ms are of the requests completed since the previous
	// frame: completed per second, and the successes' latency from their
	// intended send time (a bucket's upper edge, within about 19 %).
	RPS   float64 `json:"rps"`
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
	// CellP99Ms is the p99 of the cell's successes so far.
	CellP99Ms float64 `json:"cell_p99_ms"`
}

// ColdNow is a kind of cold start so far: how many, and the mean of each
// phase (0 where the gateway stamped none).
type ColdNow struct {
	N             int64   `json:"n"`
	MeanMs        float64 `json:"mean_ms"`
	GatewayWaitMs float64 `json:"gateway_wait_ms"`
	SetupMs       float64 `json:"setup_ms"`
}

// FnNow is a function at the timeline's last sample.
type FnNow struct {
	Name      string  `json:"name"`
	Ready     int     `json:"ready"`
	Desired   int     `json:"desired"`
	CPUCores  float64 `json:"cpu_cores"`
	MemoryMiB float64 `json:"memory_mib"`
	Queued    int64   `json:"queued"`
}

// CellDone is a kept cell's headline figures (the summary's).
type CellDone struct {
	ID        string   `json:"id"`
	RPS       float64  `json:"rps"`
	P50Ms     *float64 `json:"p50_ms"` // null when too few successes for it
	P99Ms     *float64 `json:"p99_ms"`
	Requests  int64    `json:"requests"`
	Failed    int64    `json:"failed"`
	Cold      int64    `json:"cold_starts"`
	Valid     bool     `json:"valid"`
	Behind    string   `json:"behind,omitempty"`
	CellsDone int      `json:"cells_done"`
	Total     int      `json:"cells_total"`
}

// Final is how the run ended, with every cell it kept.
type Final struct {
	Status string     `json:"status"`
	Error  string     `json:"error,omitempty"`
	Cells  []CellDone `json:"cells"`
}

// cellDone is c's headline figures.
func cellDone(c *results.Cell) CellDone {
	return CellDone{ID: c.ID, RPS: c.ThroughputRPS, P50Ms: c.SuccessLatencyMs.P50, P99Ms: c.SuccessLatencyMs.P99,
		Requests: c.Requests.Total, Failed: c.Requests.Failed, Cold: c.ColdStarts, Valid: c.Valid, Behind: c.Behind}
}

// now reads the current cell: its counts so far and, against prev (the
// previous frame's view, over dt), its last tick's rate and latency.
func now(pc plan.Cell, v, prev load.LiveView, elapsed, dt time.Duration) *Now {
	n := &Now{ID: pc.ID, Function: pc.Function, Concurrency: pc.Concurrency, OfferedRPS: pc.Rate, ElapsedS: elapsed.Seconds(), Cold: v.Cold,
		CellP99Ms: ms(v.QuantileNs(0.99)), InFlight: v.InFlight(), Behind: v.Behind, LagMs: ms(v.LagNs)}
	n.OK = v.Counts[load.ClassOK]
	_, n.Failed = v.Totals()
	for c, k := range v.Counts {
		if load.Class(c) != load.ClassOK && k > 0 {
			if n.Errors == nil {
				n.Errors = map[string]int64{}
			}
			n.Errors[load.Class(c).String()] = k
		}
	}
	for kind, c := range v.ColdByKind {
		if n.ColdByKind == nil {
			n.ColdByKind = map[string]ColdNow{}
		}
		n.ColdByKind[kind] = ColdNow{N: c.N, MeanMs: mean(c.LatencyNs, c.N), GatewayWaitMs: mean(c.WaitNs, c.Waited), SetupMs: mean(c.SetupNs, c.SetUp)}
	}
	d := v.Since(prev)
	done, _ := d.Totals()
	if dt > 0 {
		n.RPS = float64(done) / dt.Seconds()
	}
	n.P50Ms, n.P99Ms = ms(d.QuantileNs(0.5)), ms(d.QuantileNs(0.99))
	return n
}

// functions are the timeline's last samples, by name.
func functions(samples []observe.TimelineSample) []FnNow {
	out := make([]FnNow, 0, len(samples))
	for _, s := range samples {
		out = append(out, FnNow{Name: s.Function, Ready: s.Ready, Desired: s.Desired, CPUCores: s.CPUCores, MemoryMiB: s.MemoryMiB, Queued: s.Queued})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

// mean is sumNs over n in ms (0 with none).
func mean(sumNs, n int64) float64 {
	if n == 0 {
		return 0
	}
	return float64(sumNs) / float64(n) / 1e6
}
