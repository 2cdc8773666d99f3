// Package coldrate measures a platform's cold-start throughput: how many
// cold starts a second it completes, and at what latency, as the rate of
// new cold starts rises (Dirigent, SOSP'24, measures this as sandboxes a
// second: 2,500 for itself, about 2 for Knative). Each step deploys fresh
// functions at zero instances and calls each exactly once, the calls spread
// evenly at the step's rate, so every call meets a function with no
// instance: a cold start per call. The knee is the highest rate whose cold
// starts all succeeded, cold, with their p99 within a bound (default 5 s,
// Kubernetes' pod-start SLO).
package coldrate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/replay"
	"github.com/faasbench/faasbench/spec"
)

// DefaultBound is the p99 cold-start latency a sustained rate keeps within
// (Kubernetes' pod start-up SLO).
const DefaultBound = 5 * time.Second

// KeepUp is the share of a step's rate its cold starts must complete at
// to count as sustained. A platform that completes c cold starts a second,
// offered r > c, queues them: each call waits longer than the one before,
// its latency growing by r/c - 1 seconds a second of the step. A step
// falls behind when the least-squares slope of its calls' latency on their
// intended send exceeds 1/KeepUp - 1 (0.11 s a second): the slope uses
// every call, where the span from the first reply to the last takes the
// jitter of the two extremes whole (on Knative, cold starts of 1.4 to 3.5 s
// at 0.5 a second, with no queue to speak of, fail a span rule).
const KeepUp = 0.9

// MaxPerStep bounds the functions one step deploys (the spec's bound on
// kind coldrate's steps, one number for both).
const MaxPerStep = spec.MaxColdRateCalls

// Options say what a curve measures.
type Options struct {
	// Function is deployed afresh for each call, named Function.Name
	// followed by -<step>-<index>; its Replicas must be 0 (an instance
	// started before the call would not be a cold start on it).
	Function platform.Function
	// Query is appended to each function's endpoint (e.g. "?ms=1").
	Query string
	// Rates are the cold starts a second of the steps, rising.
	Rates []float64
	// Step is how long each rate is held (its calls are Rate × Step).
	Step time.Duration
	// Bound is the p99 a rate keeps within to count as sustained
	// (default DefaultBound).
	Bound time.Duration
	// KeepGoing measures every rate; by default the curve stops at the
	// first rate past the knee.
	KeepGoing bool
	// Target, if set, is the request for the deployed function called name
	// (a spec's request, with the headers its platform routes by); nil: a
	// GET of its endpoint with Query.
	Target func(ctx context.Context, name string) (load.Target, error)
}

// Validate names the first bad option.
func (o Options) Validate() error {
	switch {
	case o.Function.Name == "":
		return errors.New("coldrate: function: no name")
	case o.Function.Replicas != 0:
		return fmt.Errorf("coldrate: function replicas %d: want 0 (each call must meet no instance)", o.Function.Replicas)
	case len(o.Rates) == 0:
		return errors.New("coldrate: rates: none")
	case !(o.Step > 0):
		return fmt.Errorf("coldrate: step %v: want a positive duration", o.Step)
	case o.Bound < 0:
		return fmt.Errorf("coldrate: bound %v is negative", o.Bound)
	}
	prev := 0.0
	for i, r := range o.Rates {
		if !(r > prev) || math.IsInf(r, 0) {
			return fmt.Errorf("coldrate: rates[%d] %v: want positive, finite and rising", i, r)
		}
		if n := calls(r, o.Step); n > MaxPerStep {
			return fmt.Errorf("coldrate: rates[%d] %v over %v is %d functions, at most %d a step", i, r, o.Step, n, MaxPerStep)
		}
		prev = r
	}
	return nil
}

// calls is how many functions a step of rate r over d calls (at least one).
func calls(r float64, d time.Duration) int {
	return max(1, int(math.Round(r*d.Seconds())))
}

// Step is one rate's figures.
type Step struct {
	Rate     float64 `json:"rate"`     // cold starts a second offered
	Calls    int     `json:"calls"`    // functions deployed and called once each
	OK       int64   `json:"ok"`       // calls that succeeded
	Cold     int64   `json:"cold"`     // successes the function said were cold starts
	NotSent  int64   `json:"not_sent"` // calls the generator was too late to send
	Failed   int64   `json:"failed"`   // sent and not successful
	Deployed float64 `json:"deploy_s"` // seconds the step's deploys (and making each cold) took, before its calls
	// Completed is cold starts completed a second, from the first cold
	// reply to the last (the rate itself for a single call).
	Completed float64 `json:"completed_per_s"`
	// Latency of the successful calls from their intended send, ms.
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
	MaxMs float64 `json:"max_ms"`
	// Growth is the least-squares slope of the cold calls' latency on
	// their intended send, in seconds a second (0: fewer than 3 calls).
	Growth float64 `json:"latency_growth"`
	// Sustained: every call sent, succeeded and cold, p99 within the bound,
	// and no queue growing past KeepUp (Growth ≤ 1/KeepUp - 1: a queue that
	// grows for the step's length may still fit its p99 under the bound).
	Sustained bool   `json:"sustained"`
	Why       string `json:"why,omitempty"` // why not sustained
	// Result is the step's calls merged into one result (their open loops
	// share one start instant), for a run's cell figures; nil when none
	// was sent.
	Result *load.Result `json:"-"`
}

// Curve is the steps measured and the knee.
type Curve struct {
	Steps []Step `json:"steps"`
	// Knee is the highest rate sustained with every lower rate sustained
	// too (0: not even the first).
	Knee  float64 `json:"knee"`
	Bound float64 `json:"bound_ms"`
	// Interrupted: the context ended before the last step.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Run measures the curve on p through cl. Each step's functions are removed
// before the next step starts, and on any error; the steps measured are
// returned with an error.
func Run(ctx context.Context, p platform.Platform, cl *load.Client, o Options) (Curve, error) {
	if err := o.Validate(); err != nil {
		return Curve{}, err
	}
	if o.Bound == 0 {
		o.Bound = DefaultBound
	}
	c := Curve{Bound: float64(o.Bound) / 1e6}
	knee := true
	for i, rate := range o.Rates {
		if ctx.Err() != nil {
			c.Interrupted = true
			break
		}
		st, err := MeasureStep(ctx, p, cl, o, i, rate)
		if err != nil {
			return c, fmt.Errorf("coldrate: rate %v: %w", rate, err)
		}
		if ctx.Err() != nil {
			// Cut short: kept, marked, and never the knee.
			st.Sustained, st.Why = false, "interrupted: the figures are what was measured before"
			c.Steps = append(c.Steps, st)
			c.Interrupted = true
			break
		}
		c.Steps = append(c.Steps, st)
		if knee && st.Sustained {
			c.Knee = rate
		} else {
			knee = false
		}
		if !knee && !o.KeepGoing {
			break
		}
	}
	return c, nil
}

// MeasureStep is step idx of a curve, at rate: it deploys the step's
// functions, calls each once at the rate, measures and removes them (with
// a context of their own, whatever happened). o must be valid
// (Options.Validate), its Bound set.
func MeasureStep(ctx context.Context, p platform.Platform, cl *load.Client, o Options, idx int, rate float64) (st Step, err error) {
	if o.Bound <= 0 {
		return st, fmt.Errorf("coldrate: bound %v: want it set", o.Bound)
	}
	n := calls(rate, o.Step)
	st = Step{Rate: rate, Calls: n}
	names := make([]string, 0, n)
	defer func() {
		// Removed with a context of their own: an interrupted step leaves
		// nothing behind.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
		defer cancel()
		for _, name := range names {
			if rerr := p.Remove(rctx, name); rerr != nil && err == nil {
				err = fmt.Errorf("remove %s: %w", name, rerr)
			}
		}
	}()
	began := time.Now()
	fns := make([]replay.Function, n)
	gap := time.Duration(float64(time.Second) / rate)
	for j := range n {
		f := o.Function
		f.Name = fmt.Sprintf("%s-%d-%d", o.Function.Name, idx, j)
		if err := p.Deploy(ctx, f); err != nil {
			return st, fmt.Errorf("deploy %s: %w", f.Name, err)
		}
		names = append(names, f.Name)
		t, err := target(ctx, p, o, f.Name)
		if err != nil {
			return st, err
		}
		if t, err = makeCold(ctx, p, f.Name, t); err != nil {
			return st, err
		}
		fns[j] = replay.Function{Name: f.Name, Target: t, Offsets: load.Offsets{time.Duration(j) * gap}}
	}
	st.Deployed = time.Since(began).Seconds()
	length := time.Duration(n) * gap
	// A late cold start may still be sent up to the bound past the step's
	// end; what is later still is not sent (and counted).
	out, err := replay.Run(ctx, cl, fns, replay.Options{MaxInFlight: 1, MaxLag: o.Bound, Length: length, Grace: o.Bound})
	if err != nil && out == nil {
		return st, err
	}
	lat := hist.New()
	first, last := time.Duration(-1), time.Duration(0)
	parts := make([]*load.Result, 0, len(out))
	var sends, lats []float64 // each cold call's intended send and latency, s
	for _, oc := range out {
		r := oc.Result
		if r == nil || r.Recorder == nil {
			st.NotSent++
			continue
		}
		parts = append(parts, r)
		ok := r.Counts[load.ClassOK]
		st.OK += ok
		st.NotSent += r.Counts[load.ClassGeneratorLag]
		st.Failed += r.Total() - ok - r.Counts[load.ClassGeneratorLag]
		if ok > 0 {
			st.Cold += min(ok, r.ColdStarts)
			if h := r.Latency[load.ClassOK]; h != nil {
				if merr := lat.Merge(h); merr != nil {
					return st, merr
				}
			}
			if r.ColdStarts > 0 {
				if first < 0 || r.LastDone < first {
					first = r.LastDone
				}
				last = max(last, r.LastDone)
				if h := r.Latency[load.ClassOK]; h != nil && len(oc.Function.Offsets) > 0 {
					sends = append(sends, oc.Function.Offsets[0].Seconds())
					lats = append(lats, time.Duration(h.Max()).Seconds())
				}
			}
		}
	}
	if len(parts) > 0 {
		var merr error
		if st.Result, merr = load.MergeResults(parts); merr != nil {
			return st, merr
		}
	}
	// Between the first cold reply and the last: a platform that keeps up
	// completes them as they are offered, whatever its latency; one that
	// falls behind completes them later and later (Growth says how fast).
	st.Growth = slope(sends, lats)
	switch {
	case st.Cold > 1 && last > first:
		st.Completed = float64(st.Cold-1) / (last - first).Seconds()
	case st.Cold == 1:
		st.Completed = rate
	}
	if lat.Count() > 0 {
		st.P50Ms = float64(lat.Quantile(0.5)) / 1e6
		st.P99Ms = float64(lat.Quantile(0.99)) / 1e6
		st.MaxMs = float64(lat.Max()) / 1e6
	}
	switch {
	case st.OK < int64(n):
		st.Why = fmt.Sprintf("%d of %d calls succeeded (%d failed, %d not sent)", st.OK, n, st.Failed, st.NotSent)
	case st.Cold < st.OK:
		st.Why = fmt.Sprintf("%d of %d successes were not cold starts", st.OK-st.Cold, st.OK)
	case st.P99Ms > float64(o.Bound)/1e6:
		st.Why = fmt.Sprintf("p99 %.0f ms over the bound of %v", st.P99Ms, o.Bound)
	case st.Growth > 1/KeepUp-1:
		st.Why = fmt.Sprintf("latency grew %.0f ms a second of the step (a queue: about %.3g cold starts a second completed of %v offered): falling behind",
			1000*st.Growth, rate/(1+st.Growth), rate)
	default:
		st.Sustained = true
	}
	if err != nil && ctx.Err() == nil {
		return st, err
	}
	return st, nil
}

// target is the request for the deployed function name: o.Target's, or a
// GET of its endpoint with o.Query.
func target(ctx context.Context, p platform.Platform, o Options, name string) (load.Target, error) {
	if o.Target != nil {
		t, err := o.Target(ctx, name)
		if err != nil {
			return t, fmt.Errorf("request of %s: %w", name, err)
		}
		return t, nil
	}
	url, err := p.Endpoint(ctx, name)
	if err != nil {
		return load.Target{}, fmt.Errorf("endpoint %s: %w", name, err)
	}
	return load.Target{Method: "GET", URL: url + o.Query}, nil
}

// makeCold makes a function deployed at zero certainly cold on a platform
// that can say so (platform.ColdStarter), and returns the request its cold
// call must be: a platform may deploy a function with an instance whatever
// its replicas (OpenFaaS: at least one; Fission's executor: one at
// creation), or raise it from zero only through another component
// (Nuclio's DLX: Cold.Via). A platform whose cold start is not on the
// call's path, or is a deploy just before the call, is refused: no call
// of a step, sent at its scheduled time, would be a cold start on it.
func makeCold(ctx context.Context, p platform.Platform, name string, t load.Target) (load.Target, error) {
	cs, ok := p.(platform.ColdStarter)
	if !ok {
		return t, nil
	}
	how, err := cs.MakeCold(ctx, name)
	switch {
	case err != nil:
		return t, err
	case how.Deployed:
		return t, fmt.Errorf("coldrate: %w: %s starts a function's instance for a call only by deploying it anew just before the call (%s): a step's calls go at their scheduled times, so none would be a cold start on its path",
			platform.ErrRefused, p.Name(), how.How)
	case !how.OnPath:
		return t, fmt.Errorf("coldrate: %w: %s starts a function's instance before its call, not for it (%s): no call would be a cold start on its path",
			platform.ErrRefused, p.Name(), how.How)
	case how.Via != nil:
		return t.Reroute(how.Via.URL, how.Via.Header)
	}
	return t, nil
}

// slope is the least-squares slope of ys on xs (0 with fewer than three
// points, or xs all equal).
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	if len(xs) < 3 || len(ys) != len(xs) {
		return 0
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return 0
	}
	return sxy / sxx
}
