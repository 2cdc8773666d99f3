package runner

import (
	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/spec"
)

// Planned is a cell of a plan with the files it will write under the run
// directory.
type Planned struct {
	plan.Cell
	Files []string `json:"files"`
}

// DryRun is the plan a run of sp would follow (a static plan: an adaptive
// kind's added cells are decided while it runs), started nothing, written
// nothing. kinds nil: experiment.Builtin().
func DryRun(sp spec.Spec, kinds *experiment.Registry) ([]Planned, error) {
	if kinds == nil {
		kinds = experiment.Builtin()
	}
	k, err := kinds.New(sp)
	if err != nil {
		return nil, inputErr(err)
	}
	out := []Planned{}
	for _, c := range experiment.Plan(sp, k) {
		files := k.Files(c)
		if files == nil {
			files = []string{}
		}
		out = append(out, Planned{Cell: c, Files: files})
	}
	return out, nil
}
