package experiment

import (
	"context"
	"fmt"
	"strconv"

	"github.com/faasbench/faasbench/coldrate"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// coldRate is kind coldrate: a platform's cold-start throughput curve
// (package coldrate). Each step is a cell: rate × step fresh copies of the
// cell's function, deployed at zero instances and called once each at the
// rate, then removed. The curve ends past the knee (Adaptive: the next
// rate is added after a sustained step), unless coldrate.keep_going.
type coldRate struct {
	c spec.ColdRateSpec
}

func newColdRate(sp spec.Spec) (Kind, error) {
	k := coldRate{c: sp.ColdRate}
	if err := k.options().Validate(); err != nil {
		return nil, fmt.Errorf("coldrate: %w", err)
	}
	return k, nil
}

// options are the curve's (a function named cr stands for the one a
// cell copies).
func (k coldRate) options() coldrate.Options {
	return coldrate.Options{Function: platform.Function{Name: "cr"}, Rates: k.c.Rates, Step: k.c.Step.D(), Bound: k.c.Bound.D(), KeepGoing: k.c.KeepGoing}
}

// coldRateSuffix is a step's part of a cell key: its rate and number.
func coldRateSuffix(rate float64, step int) string {
	return fmt.Sprintf("/coldrate=%s/step=%d", keyRate(rate), step)
}

func (k coldRate) Levels() []plan.Level {
	return []plan.Level{{Suffix: coldRateSuffix(k.c.Rates[0], 1), Rate: k.c.Rates[0], Concurrency: 1,
		Params: plan.Params{{Name: "step", Value: "1"}}}}
}

func (k coldRate) Files(c plan.Cell) []string { return latencyFiles(c.ID) }

func (k coldRate) Run(ctx context.Context, c *Cell) (*results.Cell, error) {
	pc := c.Plan
	step, ok := pc.Params.Int("step")
	if !ok || step < 1 || step > len(k.c.Rates) {
		return nil, fmt.Errorf("coldrate: cell %s: step %d of %d rates", pc.ID, step, len(k.c.Rates))
	}
	if c.Deployed.Name == "" {
		return nil, fmt.Errorf("coldrate: cell %s: the deployed function is not known", pc.ID)
	}
	o := k.options()
	o.Function = c.Deployed
	// The repetition in the copies' names: a repetition never meets the
	// copies of another, even one left by a platform slow to remove them.
	o.Function.Name = fmt.Sprintf("%s-cr%d", c.Deployed.Name, pc.Repetition)
	o.Function.Replicas = 0
	o.Target = c.TargetOf
	cl := load.NewClient(c.Measured().Options)
	defer cl.Close()
	st, err := coldrate.MeasureStep(ctx, c.Platform, cl, o, step-1, pc.Rate)
	if err != nil {
		return nil, err
	}
	res := st.Result
	if res == nil || (res.Interrupted && res.Total() == 0) {
		if ctx.Err() != nil {
			return nil, nil
		}
		return nil, fmt.Errorf("coldrate: cell %s: no call was sent (%d not sent)", pc.ID, st.NotSent)
	}
	out := CellFigures(pc, c.Platform.Name(), "open", res, nil, 0)
	if err := c.writeHlog(res); err != nil {
		return nil, err
	}
	out.ColdRate = &results.ColdRateStep{Step: step, RatePerS: pc.Rate, Calls: st.Calls, Cold: st.Cold, NotSent: st.NotSent,
		DeployS: st.Deployed, CompletedPerS: st.Completed, LatencyGrowth: st.Growth, BoundMs: float64(o.Bound) / 1e6, Sustained: st.Sustained, Why: st.Why}
	if ctx.Err() != nil {
		out.ColdRate.Sustained, out.ColdRate.Why = false, "interrupted: the figures are what was measured before"
	}
	if !out.ColdRate.Sustained {
		out.Warnings = append(out.Warnings, "not sustained: "+out.ColdRate.Why)
	}
	return &out, nil
}

// Next adds the curve's next rate after a sustained step (or after any
// step, with keep_going), or ends the curve.
func (k coldRate) Next(done results.Cell, _ []results.Cell) (Decision, error) {
	st := done.ColdRate
	if st == nil {
		return Decision{Reason: "no coldrate step to decide from"}, nil
	}
	base := results.ColdRateBase(done.Key)
	switch {
	case st.Step >= len(k.c.Rates):
		return Decision{Reason: fmt.Sprintf("%s: every rate measured", base)}, nil
	case !st.Sustained && !k.c.KeepGoing:
		return Decision{Reason: fmt.Sprintf("%s: %v a second not sustained (%s): past the knee", base, st.RatePerS, st.Why)}, nil
	}
	rate := k.c.Rates[st.Step]
	next := done.Cell
	next.Rate = rate
	next.Key = base + coldRateSuffix(rate, st.Step+1)
	next.ID = fmt.Sprintf("%s/r=%d", next.Key, done.Repetition)
	next.Params = setParam(append(plan.Params(nil), done.Params...), "step", strconv.Itoa(st.Step+1))
	why := "sustained"
	if !st.Sustained {
		why = "not sustained; keep_going"
	}
	return Decision{Add: []plan.Cell{next}, Reason: fmt.Sprintf("%s: %v a second %s: next %v", base, st.RatePerS, why, rate)}, nil
}
