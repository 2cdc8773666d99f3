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

func (k baseline) Levels() []plan.Level {
	var out []plan.Level
	for _, via := range k.via {
		for _, l := range k.sweep.Levels() {
			l.Suffix = "/via=" + via + l.Suffix
			l.Params = plan.Params{{Name: "via", Value: via}}
			out = append(out, l)
		}
	}
	return out
}
