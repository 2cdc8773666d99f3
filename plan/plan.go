// Package plan expands a spec into the ordered list of cells to run: one
// cell per function × concurrency × repetition.
package plan

import (
	"fmt"
	"math/rand/v2"

	"github.com/faasbench/faasbench/spec"
)

// Cell is one load run.
type Cell struct {
	// Index is the position in the run order (0-based).
	Index int `json:"index"`
	// ID names the cell uniquely: function/c=N/r=R.
	ID string `json:"id"`
	// Key names the cell across repetitions: function/c=N.
	Key         string `json:"key"`
	Function    string `json:"function"`
	Workload    string `json:"workload"`
	Language    string `json:"language"`
	Replicas    int    `json:"replicas"`
	Concurrency int    `json:"concurrency"`
	// Rate is the open loop's requests per second (0 in a closed loop, whose
	// Concurrency is the worker count; an open loop's is its in-flight bound).
	Rate       float64 `json:"rate,omitempty"`
	Repetition int     `json:"repetition"` // 1-based
	// Kind is the experiment kind (sweep, batch, coldstart, ...).
	Kind string `json:"kind,omitempty"`
	// Params are the cell's grid values (vary, via, idle) in a fixed order.
	Params Params `json:"params,omitempty"`
}

// Level is one cell of a function at one grid point, as the experiment
// kind plans it: a load level (a concurrency, or an open loop's rate) or a
// kind's own point (an idle time, a batch).
type Level struct {
	// Suffix ends the cell's key after the grid point ("/c=8", "/cold").
	Suffix string
	// Params are the level's own grid values (via, idle).
	Params      Params
	Concurrency int
	Rate        float64
	// Only, if set, says for which functions (by language) and grid points
	// the level is planned (nil: all): a native baseline is the workload's
	// C++ program, the same whatever the replicas.
	Only func(language string, point Params) bool
}

// Expand returns the cells of s in run order: functions × the vary grid ×
// the kind's levels × repetitions. Repetitions are interleaved: every cell
// of repetition 1 runs before any of repetition 2, so drift over time
// spreads over all cells instead of biasing the last ones. With order
// "shuffled" the cells within each repetition are also shuffled, seeded by
// spec.seed and the repetition, so a run can be reproduced.
func Expand(s spec.Spec, levels []Level) []Cell {
	var out []Cell
	points := Grid(s.Vary)
	for r := 1; r <= s.Repetitions; r++ {
		var rep []Cell
		for _, f := range s.Functions {
			if !f.IsMeasured() {
				continue
			}
			for _, pt := range points {
				base := Cell{Function: f.Name, Workload: f.Workload, Language: f.Language, Replicas: f.Replicas, Repetition: r, Kind: s.Kind}
				if n, ok := pt.Int("replicas"); ok {
					base.Replicas = n
				}
				prefix := f.Name + pt.String()
				for _, lv := range levels {
					if lv.Only != nil && !lv.Only(f.Language, pt) {
						continue
					}
					c := base
					c.Params = pt.With(lv.Params)
					c.Key = prefix + lv.Suffix
					c.Concurrency, c.Rate = lv.Concurrency, lv.Rate
					c.ID = fmt.Sprintf("%s/r=%d", c.Key, r)
					rep = append(rep, c)
				}
			}
		}
		if s.Order == "shuffled" {
			rng := rand.New(rand.NewPCG(uint64(s.Seed), uint64(r)))
			rng.Shuffle(len(rep), func(i, j int) { rep[i], rep[j] = rep[j], rep[i] })
		}
		out = append(out, rep...)
	}
	for i := range out {
		out[i].Index = i
	}
	return out
}

// LoadLevels are the load section's levels: the closed loop's
// concurrencies, or the open loop's rates (whose in-flight bound is
// load.max_in_flight).
func LoadLevels(l spec.LoadSpec) []Level {
	var loads []Level
	if l.Model == "open" {
		for _, rate := range l.Rate {
			loads = append(loads, Level{Suffix: fmt.Sprintf("/rate=%g", rate), Rate: rate, Concurrency: l.MaxInFlight})
		}
		return loads
	}
	for _, c := range l.Concurrency {
		loads = append(loads, Level{Suffix: fmt.Sprintf("/c=%d", c), Concurrency: c})
	}
	return loads
}
