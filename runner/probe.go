package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
)

// probe sends each measured function the request of its first cell (one
// the spec does not declare refused) once before the first cell and fails the run, in the platform's own words, when the function
// itself does not answer (a wrong route, an ingress's 404, a crashing
// function): nothing is measured of a function that does not work. A kind
// that measures a function's first request (experiment.ColdFirst) is not
// probed: a probe would warm what it is about to measure cold.
func (c *cells) probe(ctx context.Context) error {
	if cf, ok := c.kind.(experiment.ColdFirst); ok && cf.ColdFirst() {
		fmt.Fprintf(c.o.Log, "not probing the functions: kind %s measures their first requests\n", c.sp.Kind)
		return nil
	}
	probed := map[string]bool{}
	for _, pc := range c.cells {
		if probed[pc.Function] || c.done[pc.ID] {
			continue
		}
		rule := c.sp.Expect.RuleFor(pc.Function, pc.Params.Get)
		if rule.Status != 0 {
			continue // a cell declared to be refused (a payload over the limit) is no probe's
		}
		probed[pc.Function] = true
		// The request of the function's first cell (its path, its payload),
		// through the platform's gateway: how a cell reaches the function
		// (via=direct) and a kind's own levels are the cells' to measure.
		base := plan.Cell{ID: pc.ID, Function: pc.Function, Workload: pc.Workload, Language: pc.Language, Replicas: pc.Replicas}
		for _, p := range pc.Params {
			if p.Name == "path" || p.Name == "payload_size" {
				base.Params = append(base.Params, p)
			}
		}
		fn, _, err := c.target(ctx, base)
		if err != nil {
			return fmt.Errorf("probe %s: %w", pc.Function, err)
		}
		if pk, ok := c.kind.(experiment.ProbeRequest); ok {
			cell := &experiment.Cell{Plan: base, RunID: c.m.RunID, Platform: c.p, Catalog: c.o.Catalog, Dir: c.dir,
				Functions: []experiment.Function{fn}, Path: c.specPath, Roots: c.roots(), CPUs: c.platCPUs}
			if fn.Target, err = pk.ProbeRequest(cell, fn.Target); err != nil {
				return fmt.Errorf("probe %s: %w", pc.Function, err)
			}
		}
		pr, err := experiment.Probe(ctx, fn)
		c.m.Probes = append(c.m.Probes, pr)
		if err != nil {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			if ex, ok := c.p.(platform.Explainer); ok {
				ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
				why := ex.Explain(ectx, pc.Function)
				cancel()
				if why != "" {
					return fmt.Errorf("%w\n%s", err, why)
				}
			}
			return err
		}
		fmt.Fprintf(c.o.Log, "probe %s: HTTP %d in %.1f ms from instance %s\n", pc.Function, pr.Status, pr.LatencyMs, pr.Instance)
	}
	return nil
}
