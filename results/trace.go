package results

import (
	"math"

	"github.com/faasbench/faasbench/replay"
	"github.com/faasbench/faasbench/trace"
)

// TraceReplay is kind trace's cell: the replay's figures over its
// functions (replay.Summary without the per-function list, which is in
// File), and what the cell deployed.
type TraceReplay struct {
	replay.Summary
	// Format is the trace's: azure2019, azure2021 or synthetic.
	Format string `json:"format"`
	// TraceFunctions is the whole trace's, Replayed the functions deployed
	// and replayed (a sample, or all).
	TraceFunctions int `json:"trace_functions"`
	Replayed       int `json:"replayed"`
	// Distance is the sample's Wasserstein distance to the whole trace, in
	// decades (nil: no sample).
	Distance *SampleDistance `json:"sample_distance_decades,omitempty"`
	// NotScheduled counts invocations a rate cap (trace.max_rate) left out.
	NotScheduled int64 `json:"not_scheduled,omitempty"`
	// OfferedCores is the work the schedule asks for: each function's
	// invocations × its execution time, over the replay's length (in cores
	// kept busy); Cores are the platform's, CoresFrom where they come from:
	// "pinned" (the local platform's CPUs), "nodes" (the allocatable CPU of the
	// Kubernetes nodes that take pods) or "host" (this machine's, when the
	// platform says nothing of its own).
	OfferedCores float64 `json:"offered_cores"`
	Cores        float64 `json:"cores"`
	CoresFrom    string  `json:"cores_from"`
	// MemoryCapped counts functions whose memory was over what a copy may
	// touch (three quarters of its memory limit): each touched that instead.
	MemoryCapped int `json:"memory_capped,omitempty"`
	// DeployS and RemoveS are the seconds the copies' deploys and removals took.
	DeployS float64 `json:"deploy_s"`
	RemoveS float64 `json:"remove_s"`
	// File holds every function's figures (replay.FunctionFigures), under
	// the run directory.
	File string `json:"file"`
}

// SampleDistance is trace.Distances as JSON: each nil when the trace has no
// such column.
type SampleDistance struct {
	Rate     *float64 `json:"rate,omitempty"`
	Duration *float64 `json:"duration,omitempty"`
	Memory   *float64 `json:"memory,omitempty"`
}

// DistanceOf is d as JSON (nil for nil).
func DistanceOf(d *trace.Distances) *SampleDistance {
	if d == nil {
		return nil
	}
	finite := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return &SampleDistance{Rate: finite(d.Rate), Duration: finite(d.Duration), Memory: finite(d.Memory)}
}
