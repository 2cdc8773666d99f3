package replay

import (
	"math"
	"sort"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/stats"
)

// FunctionFigures are one function's figures of a replay.
type FunctionFigures struct {
	Name     string `json:"name"`
	Intended int64  `json:"intended"` // requests its schedule had
	Sent     int64  `json:"sent"`     // went on the wire
	OK       int64  `json:"ok"`
	// Failed are requests sent that did not succeed; Dropped were never sent
	// (the generator was too late: class generator-lag).
	Failed  int64 `json:"failed"`
	Dropped int64 `json:"dropped"`
	// Gap is the share of the intended requests not sent (In-Vitro warns at
	// 10 % and aborts at 20 %: here it is reported, never hidden).
	Gap        float64 `json:"gap"`
	ColdStarts int64   `json:"cold_starts"`
	// Latencies of successes from the intended send time, in ms.
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
	// ExecMs is the function's own execution time (the trace's); Slowdown
	// is P50Ms / ExecMs (0 when either is unknown).
	ExecMs   float64 `json:"exec_ms"`
	Slowdown float64 `json:"slowdown"`
	// Minutes are its intended and sent requests in each minute of replayed
	// time that had one (the gap per function and minute).
	Minutes []MinuteGap `json:"minutes,omitempty"`
}

// MinuteGap is the replay's intended and sent requests in one minute of
// replayed time, over every function.
type MinuteGap struct {
	Minute   int   `json:"minute"`
	Intended int64 `json:"intended"`
	Sent     int64 `json:"sent"`
}

// Summary is a replay's figures.
type Summary struct {
	Functions []FunctionFigures `json:"functions,omitempty"`
	Intended  int64             `json:"intended"`
	Sent      int64             `json:"sent"`
	OK        int64             `json:"ok"`
	Gap       float64           `json:"gap"`
	// WorstGap is the largest gap of a function with at least one
	// intended request; WorstMinuteGap the largest of one function in one
	// minute with at least one (a function late in a burst, hidden in its
	// whole replay's figure).
	WorstGap       float64 `json:"worst_gap"`
	WorstMinuteGap float64 `json:"worst_minute_gap"`
	// NoSuccess counts functions called at least once and never
	// successfully: they have no slowdown, and the slowdown's percentiles
	// leave them out (read the two together).
	NoSuccess int `json:"functions_without_success"`
	// Slowdown over the functions that have one: its 50th, 90th and 99th
	// percentiles (nearest rank).
	SlowdownP50 float64     `json:"slowdown_p50"`
	SlowdownP90 float64     `json:"slowdown_p90"`
	SlowdownP99 float64     `json:"slowdown_p99"`
	ColdStarts  int64       `json:"cold_starts"`
	Minutes     []MinuteGap `json:"minutes"`
}

// Summarize computes a replay's figures; minute is the length of a replayed
// minute (time.Minute / the compression).
func Summarize(out []Outcome, minute time.Duration) Summary {
	var s Summary
	var slow []float64
	for _, o := range out {
		f := figures(o)
		f.Minutes = minutesOf(o, minute)
		for _, m := range f.Minutes {
			if m.Intended > 0 {
				s.WorstMinuteGap = math.Max(s.WorstMinuteGap, gap(m.Intended, m.Sent))
			}
		}
		s.Functions = append(s.Functions, f)
		s.Intended += f.Intended
		s.Sent += f.Sent
		s.OK += f.OK
		s.ColdStarts += f.ColdStarts
		if f.Intended > 0 {
			s.WorstGap = math.Max(s.WorstGap, f.Gap)
			if f.OK == 0 {
				s.NoSuccess++
			}
		}
		if f.Slowdown > 0 {
			slow = append(slow, f.Slowdown)
		}
		s.addMinutes(f.Minutes)
	}
	if s.Intended > 0 {
		s.Gap = 1 - float64(s.Sent)/float64(s.Intended)
	}
	sort.Float64s(slow)
	s.SlowdownP50, s.SlowdownP90, s.SlowdownP99 = stats.NearestRank(slow, 0.5), stats.NearestRank(slow, 0.9), stats.NearestRank(slow, 0.99)
	return s
}

func figures(o Outcome) FunctionFigures {
	f := FunctionFigures{Name: o.Function.Name, Intended: int64(len(o.Function.Offsets)), ExecMs: o.Function.ExecMs}
	r := o.Result
	if r == nil || r.Recorder == nil {
		f.Gap = gap(f.Intended, 0)
		return f
	}
	f.OK = r.Counts[load.ClassOK]
	f.Dropped = r.Counts[load.ClassGeneratorLag]
	f.Sent = r.Total() - f.Dropped
	f.Failed = f.Sent - f.OK
	f.Gap = gap(f.Intended, f.Sent)
	f.ColdStarts = r.ColdStarts
	if h := r.Latency[load.ClassOK]; h != nil && h.Count() > 0 {
		f.P50Ms = float64(h.Quantile(0.5)) / 1e6
		f.P99Ms = float64(h.Quantile(0.99)) / 1e6
		if f.ExecMs > 0 {
			f.Slowdown = f.P50Ms / f.ExecMs
		}
	}
	return f
}

func gap(intended, sent int64) float64 {
	if intended == 0 {
		return 0
	}
	return 1 - float64(sent)/float64(intended)
}

// minutesOf is o's intended requests (from its offsets) and its sent ones
// (from its per-second windows) in the minutes they fall in, the minutes
// without either left out.
func minutesOf(o Outcome, minute time.Duration) []MinuteGap {
	if minute <= 0 {
		return nil
	}
	var ms []MinuteGap
	at := func(m int) *MinuteGap {
		for len(ms) <= m {
			ms = append(ms, MinuteGap{Minute: len(ms)})
		}
		return &ms[m]
	}
	for _, off := range o.Function.Offsets {
		at(int(off/minute)).Intended++
	}
	if o.Result != nil {
		for sec, w := range o.Result.Windows {
			if w.Sent > 0 {
				at(int(time.Duration(sec) * time.Second / minute)).Sent += w.Sent
			}
		}
	}
	kept := ms[:0]
	for _, m := range ms {
		if m.Intended > 0 || m.Sent > 0 {
			kept = append(kept, m)
		}
	}
	return kept
}

// addMinutes adds a function's minutes to the replay's.
func (s *Summary) addMinutes(ms []MinuteGap) {
	for _, m := range ms {
		for len(s.Minutes) <= m.Minute {
			s.Minutes = append(s.Minutes, MinuteGap{Minute: len(s.Minutes)})
		}
		s.Minutes[m.Minute].Intended += m.Intended
		s.Minutes[m.Minute].Sent += m.Sent
	}
}
