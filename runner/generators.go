package runner

import (
	"context"

	"github.com/faasbench/faasbench/distrib"
	"github.com/faasbench/faasbench/experiment"
)

// driver is what sends the cells' load: this process, or, with
// load.generators, several generator processes whose results are merged
// exactly (package distrib).
func (r *Run) driver() experiment.Driver {
	g := r.sp.Load.Generators
	if g == nil || g.Count <= 1 {
		return experiment.LocalDriver{}
	}
	return distrib.Driver{Launch: func(ctx context.Context, allow []string) (*distrib.Coordinator, error) {
		return distrib.Local{N: g.Count, CPUs: r.genCPUs, Allow: allow, RunID: r.m.RunID, Stderr: r.o.Messages}.Start(ctx)
	}}
}
