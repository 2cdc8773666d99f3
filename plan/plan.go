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
}

// Expand returns the cells of s in run order. Repetitions are interleaved:
// every cell of repetition 1 runs before any of repetition 2, so drift over
// time spreads over all cells instead of biasing the last ones. With order
// "shuffled" the cells within each repetition are also shuffled, seeded by
// spec.seed and the repetition, so a run can be reproduced.
func Expand(s spec.Spec) []Cell {
	var out []Cell
	for r := 1; r <= s.Repetitions; r++ {
		var rep []Cell
		for _, f := range s.Functions {
			base := Cell{Function: f.Name, Workload: f.Workload, Language: f.Language, Replicas: f.Replicas, Repetition: r}
			if s.Load.Model == "open" {
				for _, rate := range s.Load.Rate {
					c := base
					c.Key, c.Rate, c.Concurrency = fmt.Sprintf("%s/rate=%g", f.Name, rate), rate, s.Load.MaxInFlight
					c.ID = fmt.Sprintf("%s/r=%d", c.Key, r)
					rep = append(rep, c)
				}
				continue
			}
			for _, conc := range s.Load.Concurrency {
				c := base
				c.Key, c.Concurrency = fmt.Sprintf("%s/c=%d", f.Name, conc), conc
				c.ID = fmt.Sprintf("%s/r=%d", c.Key, r)
				rep = append(rep, c)
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
