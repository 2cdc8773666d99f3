package experiment

import (
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/spec"
)

// baseline is kind baseline: the sweep's load, once through the
// platform's gateway and once straight to an instance (the cell's via
// parameter; the engine resolves the direct endpoint), seed 003's
// gateway-vs-direct comparison.
type baseline struct {
	sweep
	via []string
}

func newBaseline(sp spec.Spec) (Kind, error) {
	return baseline{sweep: sweep{load: sp.Load, seed: sp.Seed}, via: sp.Baseline.Via}, nil
}

func (k baseline) Levels() []plan.Level { return withVia(k.via, k.sweep.Levels()) }

// withVia crosses levels with the paths of via, the via first in each
// key (none: the levels as they are). Kind batch uses it too.
func withVia(via []string, levels []plan.Level) []plan.Level {
	if len(via) == 0 {
		return levels
	}
	var out []plan.Level
	for _, v := range via {
		for _, l := range levels {
			l.Suffix = "/via=" + v + l.Suffix
			l.Params = append(plan.Params{{Name: "via", Value: v}}, l.Params...)
			out = append(out, l)
		}
	}
	return out
}
