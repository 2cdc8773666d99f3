// Package trace reads, writes, synthesizes and samples function traces in
// the formats of the public Azure Functions datasets: the 2019 trace
// (invocations per function and minute, execution-time percentiles per
// function, allocated-memory percentiles per application; Shahrad et al.,
// "Serverless in the Wild", USENIX ATC 2020) and the 2021 trace (one row per
// invocation: app, func, end_timestamp, duration; Zhang et al., SOSP 2021).
// A Trace holds many functions, each with its own arrivals: what a
// many-function replay drives.
package trace

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/faasbench/faasbench/stats"
)

// MinuteColumns is the number of minute columns of a 2019 invocations file
// (one day).
const MinuteColumns = 1440

// MaxFunctions bounds what a reader keeps, so that a file of unexpected size
// fails with a sentence instead of exhausting memory: the 2019 trace's
// largest day has about 46,000 functions.
const MaxFunctions = 200_000

// Function is one function of a trace.
type Function struct {
	Owner, App, Name string // the trace's hashed ids
	Trigger          string // http, timer, event, queue, storage, orchestration, others ("" in 2021)
	// PerMinute is the number of invocations in each minute of the trace.
	PerMinute []int32
	// Starts are the invocations' start offsets from the trace's start, in
	// order (the 2021 format only; nil for the 2019 format, which has counts).
	Starts []time.Duration
	// Durations are the invocations' execution times, Starts' order (2021 only).
	Durations []time.Duration
	// Duration is the execution time's summary in milliseconds (2019: the
	// durations file; 2021: computed from Durations); nil when the trace has none.
	Duration *Percentiles
	// MemoryMB is the allocated memory's summary in MB of the function's
	// application (the 2019 trace measures memory per application); nil when
	// the trace has none.
	MemoryMB *Percentiles
}

// Percentiles is a summary as the 2019 trace gives it: the average, the
// count it is over, the true minimum and maximum, and percentiles (Q in 0..100).
type Percentiles struct {
	Average  float64
	Count    int64
	Min, Max float64
	Points   []Point
}

// Point is one percentile: Q in 0..100, V its value.
type Point struct{ Q, V float64 }

// At is the value at quantile q (0..100), interpolated linearly between the
// summary's points; the nearest end outside them.
func (p *Percentiles) At(q float64) float64 {
	pts := p.Points
	if len(pts) == 0 {
		return p.Average
	}
	if q <= pts[0].Q {
		return pts[0].V
	}
	for i := 1; i < len(pts); i++ {
		if q <= pts[i].Q {
			a, b := pts[i-1], pts[i]
			if b.Q == a.Q {
				return b.V
			}
			return a.V + (b.V-a.V)*(q-a.Q)/(b.Q-a.Q)
		}
	}
	return pts[len(pts)-1].V
}

// ID names the function in messages: its application and name, shortened.
func (f *Function) ID() string {
	return short(f.App) + "/" + short(f.Name)
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// Invocations is the function's number of invocations in the whole trace.
func (f *Function) Invocations() int64 {
	var n int64
	for _, c := range f.PerMinute {
		n += int64(c)
	}
	return n
}

// Trace is a set of functions over the same minutes.
type Trace struct {
	Minutes   int
	Functions []Function
}

// Invocations is the trace's number of invocations.
func (t *Trace) Invocations() int64 {
	var n int64
	for i := range t.Functions {
		n += t.Functions[i].Invocations()
	}
	return n
}

// key is a function's identity across the 2019 trace's files.
type key struct{ owner, app, name string }

// summarize computes a Percentiles from raw values (the 2021 format), with
// the 2019 trace's percentile points.
func summarize(vals []float64) *Percentiles {
	if len(vals) == 0 {
		return nil
	}
	s := append([]float64(nil), vals...)
	sort.Float64s(s)
	var sum float64
	for _, v := range s {
		sum += v
	}
	p := &Percentiles{Average: sum / float64(len(s)), Count: int64(len(s)), Min: s[0], Max: s[len(s)-1]}
	for _, q := range durationQuantiles {
		p.Points = append(p.Points, Point{Q: q, V: stats.SortedQuantile(s, q/100)})
	}
	return p
}

// rowError is bad input at a line of a named file.
func rowError(file string, row int, format string, args ...any) error {
	return fmt.Errorf("%s: line %d: %s", file, row, fmt.Sprintf(format, args...))
}

// SpinParams are f's parameters for the trace function (the spin
// workload): its average execution time in ms and its application's
// average memory in MB, rounded (0 when the trace has none).
func (f *Function) SpinParams() (ms, mb int64) {
	if f.Duration != nil {
		ms = int64(math.Round(f.Duration.Average))
	}
	if f.MemoryMB != nil {
		mb = int64(math.Round(f.MemoryMB.Average))
	}
	return ms, mb
}
