package local

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"
)

// Autoscaling policies.
const (
	ScaleNone        = ""
	ScaleConcurrency = "concurrency" // Knative KPA: in-flight requests per instance
	ScaleRPS         = "rps"         // OpenFaaS CE: an alert on the request rate adds a step of replicas
	ScaleCPU         = "cpu"         // Kubernetes HPA: CPU use as a share of each instance's CPU limit
)

// Autoscale configures a function's autoscaler (DeployRequest.Autoscale).
type Autoscale struct {
	Policy string `json:"policy"`
	Min    int    `json:"min"`
	Max    int    `json:"max"`
	// Target: concurrent requests per instance (concurrency), requests per
	// second that raise the alert (rps), or CPU utilisation 0..1 (cpu).
	Target float64 `json:"target"`
	// StableWindowMs: concurrency averages over it (KPA, default 60 s); cpu
	// waits that long before scaling down (HPA stabilisation, default 300 s);
	// rps: the alert must be quiet that long before replicas return to min.
	StableWindowMs int64 `json:"stable_window_ms,omitempty"`
	// PanicWindowMs (concurrency): a short window (default 10 % of stable)
	// whose average, when over PanicThreshold × target × ready, scales up at
	// once and forbids scaling down until the panic ends.
	PanicWindowMs  int64   `json:"panic_window_ms,omitempty"`
	PanicThreshold float64 `json:"panic_threshold,omitempty"` // default 2 (200 %)
	// MaxScaleUpRate bounds a scale-up to ready × rate (KPA, default 1000).
	MaxScaleUpRate float64 `json:"max_scale_up_rate,omitempty"`
	// IntervalMs is how often a decision is taken (default: 2 s for
	// concurrency, 5 s for rps, 15 s for cpu).
	IntervalMs int64 `json:"interval_ms,omitempty"`
	// StepPercent (rps): an alert adds this share of Max (default 20).
	StepPercent float64 `json:"step_percent,omitempty"`
}

// sampleEvery is how often the autoscaler samples concurrency and rate.
const sampleEvery = 100 * time.Millisecond

// autoscaler runs one function's policy.
type autoscaler struct {
	cfg      Autoscale
	s        *Server
	f        *function
	interval time.Duration
	stable   time.Duration
	panicW   time.Duration
	// samples: in-flight requests (concurrency) every sampleEvery.
	conc     []float64
	lastReqs int64
	rates    []float64 // requests per second every sampleEvery
	panicky  time.Time // panic mode ends then
	alertOff time.Time // rps: when the alert last fired
	downFrom time.Time // cpu: when a scale-down first became possible
	scaling  atomic.Bool
	stop     chan struct{}
}

func (a Autoscale) validate() error {
	switch a.Policy {
	case ScaleNone:
		return nil
	case ScaleConcurrency, ScaleRPS:
		if a.Target <= 0 {
			return fmt.Errorf("autoscale target %v: want > 0", a.Target)
		}
	case ScaleCPU:
		if a.Target <= 0 || a.Target > 1 {
			return fmt.Errorf("autoscale target %v: want a CPU share in (0, 1]", a.Target)
		}
	default:
		return fmt.Errorf("autoscale policy %q: want concurrency, rps or cpu", a.Policy)
	}
	if a.Min < 0 || a.Max < max(a.Min, 1) || a.Max > MaxReplicas {
		return fmt.Errorf("autoscale min %d max %d: want 0 ≤ min ≤ max, 1 ≤ max ≤ %d", a.Min, a.Max, MaxReplicas)
	}
	if a.StableWindowMs < 0 || a.PanicWindowMs < 0 || a.IntervalMs < 0 || a.StepPercent < 0 || a.PanicThreshold < 0 || a.MaxScaleUpRate < 0 {
		return fmt.Errorf("autoscale windows, interval, step and rates must not be negative")
	}
	return nil
}

func newAutoscaler(s *Server, f *function, c Autoscale) *autoscaler {
	a := &autoscaler{cfg: c, s: s, f: f, stop: make(chan struct{})}
	def := map[string][2]time.Duration{ScaleConcurrency: {2 * time.Second, 60 * time.Second}, ScaleRPS: {5 * time.Second, 30 * time.Second}, ScaleCPU: {15 * time.Second, 300 * time.Second}}[c.Policy]
	a.interval, a.stable = def[0], def[1]
	if c.IntervalMs > 0 {
		a.interval = time.Duration(c.IntervalMs) * time.Millisecond
	}
	if c.StableWindowMs > 0 {
		a.stable = time.Duration(c.StableWindowMs) * time.Millisecond
	}
	a.panicW = a.stable / 10
	if c.PanicWindowMs > 0 {
		a.panicW = time.Duration(c.PanicWindowMs) * time.Millisecond
	}
	if a.cfg.PanicThreshold == 0 {
		a.cfg.PanicThreshold = 2
	}
	if a.cfg.MaxScaleUpRate == 0 {
		a.cfg.MaxScaleUpRate = 1000
	}
	if a.cfg.StepPercent == 0 {
		a.cfg.StepPercent = 20
	}
	return a
}

func avgLast(xs []float64, n int) float64 {
	if len(xs) == 0 {
		return 0
	}
	n = min(n, len(xs))
	sum := 0.0
	for _, x := range xs[len(xs)-n:] {
		sum += x
	}
	return sum / float64(n)
}

func (a *autoscaler) run() {
	t := time.NewTicker(sampleEvery)
	defer t.Stop()
	lastDecision := time.Now()
	var lastCPU map[string]int64
	lastCPUAt := time.Now()
	keep := int(max(a.stable, a.interval)/sampleEvery) + 1
	for {
		select {
		case <-a.stop:
			return
		case <-a.s.ctx.Done():
			return
		case now := <-t.C:
			a.conc = append(a.conc, float64(a.f.inflight.Load()))
			reqs := a.f.requests.Load()
			a.rates = append(a.rates, float64(reqs-a.lastReqs)/sampleEvery.Seconds())
			a.lastReqs = reqs
			if len(a.conc) > keep {
				a.conc, a.rates = a.conc[len(a.conc)-keep:], a.rates[len(a.rates)-keep:]
			}
			ready := a.ready()
			var want int
			switch a.cfg.Policy {
			case ScaleConcurrency:
				want = a.concurrency(now, ready)
			case ScaleRPS:
				if now.Sub(lastDecision) < a.interval {
					continue
				}
				want = a.rps(now, ready)
			case ScaleCPU:
				if now.Sub(lastDecision) < a.interval {
					continue
				}
				var cpu map[string]int64
				want, cpu = a.cpu(now, ready, lastCPU, now.Sub(lastCPUAt))
				lastCPU, lastCPUAt = cpu, now
			}
			if a.cfg.Policy == ScaleConcurrency && now.Sub(lastDecision) < a.interval && want <= ready {
				continue // between decisions only a panic scale-up acts
			}
			lastDecision = now
			want = min(max(want, a.cfg.Min), a.cfg.Max)
			if want != ready && a.scaling.CompareAndSwap(false, true) {
				go func(want int, why string) {
					defer a.scaling.Store(false)
					_ = a.s.scale(a.s.ctx, a.f, want, why)
				}(want, fmt.Sprintf("autoscale %s: %d → %d", a.cfg.Policy, ready, want))
			}
		}
	}
}

func (a *autoscaler) ready() int {
	if p := a.f.ready.Load(); p != nil {
		return len(*p)
	}
	return 0
}

// concurrency is Knative's KPA: desired = ceil(average concurrency / target)
// over the stable window; if the panic window's average exceeds the panic
// threshold, scale up at once and never down until the panic is over.
func (a *autoscaler) concurrency(now time.Time, ready int) int {
	stableN := int(a.stable / sampleEvery)
	panicN := max(int(a.panicW/sampleEvery), 1)
	stableWant := int(math.Ceil(avgLast(a.conc, stableN) / a.cfg.Target))
	panicWant := int(math.Ceil(avgLast(a.conc, panicN) / a.cfg.Target))
	if float64(panicWant) >= a.cfg.PanicThreshold*float64(max(ready, 1)) {
		a.panicky = now.Add(a.stable)
	}
	want := stableWant
	if now.Before(a.panicky) {
		want = max(panicWant, ready) // panic: up only
	}
	if ready > 0 {
		want = min(want, int(math.Ceil(float64(ready)*a.cfg.MaxScaleUpRate)))
	}
	return want
}

// rps is OpenFaaS CE's alert: while the request rate over the window is
// above the target, every interval adds StepPercent of Max; once it has been
// below for the stable window, replicas return to Min.
func (a *autoscaler) rps(now time.Time, ready int) int {
	rate := avgLast(a.rates, int(a.interval/sampleEvery))
	if rate > a.cfg.Target {
		a.alertOff = now
		step := max(int(math.Ceil(float64(a.cfg.Max)*a.cfg.StepPercent/100)), 1)
		return ready + step
	}
	if now.Sub(a.alertOff) >= a.stable {
		return a.cfg.Min
	}
	return ready
}

// cpu is the HPA rule: desired = ceil(ready × utilisation / target), where
// utilisation is CPU used over the function's CPU limit per instance (one
// core without a limit); scaling down waits the stabilisation window.
func (a *autoscaler) cpu(now time.Time, ready int, last map[string]int64, dt time.Duration) (int, map[string]int64) {
	cur := map[string]int64{}
	var used float64
	for _, in := range a.snapshot() {
		if in.group == nil {
			continue
		}
		u, err := in.group.Usage()
		if err != nil {
			continue
		}
		cur[in.id] = u.CPUNs
		if prev, ok := last[in.id]; ok && dt > 0 {
			used += float64(u.CPUNs-prev) / float64(dt)
		}
	}
	if last == nil || ready == 0 {
		return ready, cur
	}
	limit := a.f.req.CPUs
	if limit <= 0 {
		limit = 1
	}
	util := used / (float64(ready) * limit)
	want := int(math.Ceil(float64(ready) * util / a.cfg.Target))
	if want < ready {
		if a.downFrom.IsZero() {
			a.downFrom = now
		}
		if now.Sub(a.downFrom) < a.stable {
			return ready, cur
		}
	} else {
		a.downFrom = time.Time{}
	}
	return want, cur
}

func (a *autoscaler) snapshot() []*instance {
	if p := a.f.ready.Load(); p != nil {
		return *p
	}
	return nil
}
