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

// Expand returns the cells of s in run order. Repetitions are interleaved:
// every cell of repetition 1 runs before any of repetition 2, so drift over
// time spreads over all cells instead of biasing the last ones. With order
// "shuffled" the cells within each repetition are also shuffled, seeded by
// spec.seed and the repetition, so a run can be reproduced.
//
// A repetition's cells are functions × the vary grid × the kind's levels:
// concurrency or rate (sweep), via × concurrency or rate (baseline), idle
// times (coldstart with an idle sweep), or one cell (batch, autoscale,
// coldstart).
func Expand(s spec.Spec) []Cell {
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
				for _, lv := range levels(s) {
					c := base
					c.Params = pt.With(lv.params)
					c.Key = prefix + lv.suffix
					c.Concurrency, c.Rate = lv.concurrency, lv.rate
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

type level struct {
	suffix      string
	params      Params
	concurrency int
	rate        float64
}

// levels are the load levels of one function at one grid point.
func levels(s spec.Spec) []level {
	var loads []level
	if s.Load.Model == "open" {
		for _, rate := range s.Load.Rate {
			loads = append(loads, level{suffix: fmt.Sprintf("/rate=%g", rate), rate: rate, concurrency: s.Load.MaxInFlight})
		}
	} else {
		for _, c := range s.Load.Concurrency {
			loads = append(loads, level{suffix: fmt.Sprintf("/c=%d", c), concurrency: c})
		}
	}
	switch s.Kind {
	case spec.KindBaseline:
		var out []level
		for _, via := range s.Baseline.Via {
			for _, l := range loads {
				l.suffix = "/via=" + via + l.suffix
				l.params = Params{{"via", via}}
				out = append(out, l)
			}
		}
		return out
	case spec.KindColdStart:
		if len(s.ColdStart.Idle) == 0 {
			return []level{{suffix: "/cold"}}
		}
		var out []level
		for _, d := range s.ColdStart.Idle {
			out = append(out, level{suffix: "/idle=" + d.String(), params: Params{{"idle", d.String()}}})
		}
		return out
	case spec.KindBatch:
		return []level{{suffix: "/batch"}}
	case spec.KindAutoscale:
		return []level{{suffix: "/autoscale"}}
	}
	return loads
}
