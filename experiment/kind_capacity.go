package experiment

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
	"github.com/faasbench/faasbench/stats"
)

// capacity is kind capacity: the highest offered rate at which a function
// keeps its SLO (capacity.percentile of its successes' latency under
// capacity.latency_ms, and failures under capacity.max_errors), found by
// open-loop steps that search (searchNext) and a validation run that
// confirms, as Envoy's Nighthawk adaptive load does. Each step is its own
// cell; the search adds the next after each (Adaptive), so a resumed run
// replays its decisions. A step meets the SLO only when the upper bound of
// its percentile's interval does (the within-run order-statistic interval,
// with at least the percentile's minimum sample count: the step is made
// long enough to collect it), so an undecided step counts as missed: a
// capacity is a rate shown to be served.
type capacity struct {
	c    spec.CapacitySpec
	load spec.LoadSpec
	seed int64
	q    float64
}

func newCapacity(sp spec.Spec) (Kind, error) {
	return capacity{c: sp.Capacity, load: sp.Load, seed: sp.Seed, q: sp.Capacity.Percentile / 100}, nil
}

// rateSuffix is a step's part of a cell key: its rate, phase and number
// (a step run again, or a rate validated after it was searched, is a cell
// of its own).
func rateSuffix(rate float64, phase string, step int) string {
	s := "/rate=" + keyRate(rate)
	if phase == "validate" {
		s += "/validate"
	}
	return fmt.Sprintf("%s/step=%d", s, step)
}

// keyRate writes a rate with at most 4 significant digits and no exponent.
func keyRate(r float64) string {
	v, err := strconv.ParseFloat(strconv.FormatFloat(r, 'g', 4, 64), 64)
	if err != nil {
		v = r
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func (k capacity) Levels() []plan.Level {
	return []plan.Level{{Suffix: rateSuffix(k.c.Start, "search", 1), Rate: k.c.Start, Concurrency: k.load.MaxInFlight,
		Params: plan.Params{{Name: "step", Value: "1"}, {Name: "phase", Value: "search"}}}}
}

func (k capacity) Files(c plan.Cell) []string { return latencyFiles(c.ID) }

// stepLength is how long a step at rate runs: the spec's step (or
// validation) length, made long enough for the percentile's minimum sample
// count at that rate, at most ten times as long.
func (k capacity) stepLength(rate float64, phase string) time.Duration {
	d := k.c.Step.D()
	if phase == "validate" {
		d = k.c.Validate.D()
	}
	need := time.Duration(float64(stats.MinSamples(k.q)) * 1.2 / rate * float64(time.Second))
	return min(max(d, need), 10*d)
}

func (k capacity) Run(ctx context.Context, c *Cell) (*results.Cell, error) {
	pc, fn := c.Plan, c.Measured()
	phase, _ := pc.Params.Get("phase")
	step, _ := pc.Params.Int("step")
	d := k.stepLength(pc.Rate, phase)
	ses := c.Driver.Session(fn.Options)
	defer ses.Close()
	run := func(d time.Duration) (Driven, error) {
		ss, err := load.ParseScheduleSpec(fmt.Sprintf("%s:%g", k.load.Schedule, pc.Rate))
		if err != nil {
			return Driven{}, err
		}
		sched, err := ss.Build(uint64(k.seed)+uint64(pc.Index), d, 0)
		if err != nil {
			return Driven{}, err
		}
		return ses.Drive(ctx, load.Open{Schedule: sched, MaxInFlight: k.load.MaxInFlight, Expected: d, Live: c.live(), Deadline: d, Grace: k.load.GraceD()}, fn.Target)
	}
	if wu := k.load.Warmup.D(); wu > 0 {
		if _, err := run(wu); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
		if ctx.Err() != nil {
			return nil, nil
		}
	}
	dr, err := run(d)
	if err != nil {
		return nil, err
	}
	res := dr.Result
	if res.Interrupted && res.Total() == 0 {
		return nil, nil
	}
	out := CellFigures(pc, c.Platform.Name(), "open", res, dr.Generator, dr.Cores)
	dr.Split.Apply(&out)
	if err := c.writeHlog(res); err != nil {
		return nil, err
	}
	out.Capacity = k.judge(&out, res, phase, step)
	return &out, nil
}

// judge is a step's verdict on the SLO, and its goodput.
func (k capacity) judge(out *results.Cell, res *load.Result, phase string, step int) *results.CapacityStep {
	cs := &results.CapacityStep{Phase: phase, Step: step, RateRPS: out.Rate}
	if out.Requests.Total > 0 {
		cs.ErrorShare = float64(out.Requests.Failed) / float64(out.Requests.Total)
	}
	if ok := res.Latency[load.ClassOK]; ok != nil && res.Elapsed > 0 {
		cs.GoodputRPS = float64(within(ok, k.c.LatencyMs)) / res.Elapsed.Seconds()
	}
	pct := fmt.Sprintf("p%s", strconv.FormatFloat(k.c.Percentile, 'f', -1, 64))
	v, iv := out.SuccessLatencyMs.At(k.q)
	cs.QuantileMs = v
	if iv != nil {
		hi := iv.Hi
		cs.QuantileHiMs = &hi
	}
	maxErr := *k.c.MaxErrors
	switch {
	case !out.Valid:
		cs.Verdict, cs.Reason = results.Invalid, "the step is not valid: "+strings.Join(out.Warnings, "; ")
	case cs.ErrorShare > maxErr:
		cs.Verdict, cs.Reason = results.Misses, fmt.Sprintf("errors %.3g %% > %.3g %%", 100*cs.ErrorShare, 100*maxErr)
	case v == nil || iv == nil:
		cs.Verdict, cs.Reason = results.Misses, fmt.Sprintf("too few successes (%d) to bound %s: undecided counts as missed", out.SuccessLatencyMs.Count, pct)
	case iv.Hi <= k.c.LatencyMs:
		cs.Verdict, cs.Reason = results.Meets, fmt.Sprintf("%s %.3g ms (≤ %.3g at 95 %%) within %.3g ms; errors %.3g %%", pct, *v, iv.Hi, k.c.LatencyMs, 100*cs.ErrorShare)
	default:
		cs.Verdict, cs.Reason = results.Misses, fmt.Sprintf("%s %.3g ms (up to %.3g at 95 %%) over %.3g ms", pct, *v, iv.Hi, k.c.LatencyMs)
	}
	return cs
}

// within counts the values of h at or under ms (a band straddling the bound
// counts as over it).
func within(h *hist.Histogram, ms float64) int64 {
	var n int64
	limit := int64(math.Round(ms * 1e6))
	h.EachBand(func(_, to, c int64) {
		if to <= limit {
			n += c
		}
	})
	return n
}

// Next adds the search's next step after done, or ends the search.
func (k capacity) Next(done results.Cell, all []results.Cell) (Decision, error) {
	base := results.CapacityBase(done.Key)
	var steps []searchStep
	last := 0
	for _, c := range all {
		if c.Capacity == nil || c.Repetition != done.Repetition || results.CapacityBase(c.Key) != base {
			continue
		}
		steps = append(steps, searchStep{Rate: c.Capacity.RateRPS, Phase: c.Capacity.Phase, Verdict: c.Capacity.Verdict})
		last = max(last, c.Capacity.Step)
	}
	if len(steps) == 0 {
		return Decision{Reason: "no capacity step to decide from"}, nil
	}
	cfg := searchConfig{Start: k.c.Start, Max: k.c.Max, Tolerance: k.c.Tolerance, MaxSteps: k.c.MaxSteps, InvalidRetries: *k.c.InvalidRetries}
	rate, phase, end, _, why := searchNext(steps, cfg)
	if end {
		return Decision{Reason: base + ": " + why}, nil
	}
	next := done.Cell
	next.Rate = rate
	next.Key = base + rateSuffix(rate, phase, last+1)
	next.ID = fmt.Sprintf("%s/r=%d", next.Key, done.Repetition)
	next.Params = setParam(setParam(append(plan.Params(nil), done.Params...), "step", strconv.Itoa(last+1)), "phase", phase)
	return Decision{Add: []plan.Cell{next}, Reason: fmt.Sprintf("%s: %s", base, why)}, nil
}

func setParam(ps plan.Params, name, value string) plan.Params {
	for i := range ps {
		if ps[i].Name == name {
			ps[i].Value = value
			return ps
		}
	}
	return append(ps, plan.Param{Name: name, Value: value})
}
