package load

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"time"
)

// Schedule is an open-loop arrival schedule: a pure function from the
// request index (0-based) to its intended send offset from the run's start.
// Offsets never decrease with the index. ok is false past the last request
// of a finite schedule. Being a function of the index (not a sequence of
// sleeps), a schedule never drifts, can be tested exactly, and can be written
// out and replayed.
type Schedule interface {
	Offset(i int64) (off time.Duration, ok bool)
}

// Constant sends Rate requests per second, evenly spaced.
type Constant struct{ Rate float64 }

// Offset implements Schedule.
func (c Constant) Offset(i int64) (time.Duration, bool) {
	return time.Duration(float64(i) * 1e9 / c.Rate), true
}

// Burst sends Size requests at once every Every (seed 003's bursty load).
type Burst struct {
	Size  int64
	Every time.Duration
}

// Offset implements Schedule.
func (b Burst) Offset(i int64) (time.Duration, bool) {
	return time.Duration(i/b.Size) * b.Every, true
}

// Offsets replays an explicit list of offsets (a trace, or a schedule that
// was written out by WriteSchedule).
type Offsets []time.Duration

// Offset implements Schedule.
func (o Offsets) Offset(i int64) (time.Duration, bool) {
	if i < 0 || i >= int64(len(o)) {
		return 0, false
	}
	return o[i], true
}

// Stage is one piece of a step/ramp schedule: over Duration the rate goes
// from the previous stage's end rate (0 before the first) to Rate, linearly
// when Ramp, at once otherwise.
type Stage struct {
	Duration time.Duration
	Rate     float64
	Ramp     bool
}

// Stages is a piecewise-linear rate over time. The i-th request is sent when
// the integral of the rate reaches i (the first request at time 0 if the
// first stage's rate is above zero).
type Stages struct {
	stages []Stage
	// per stage: start time (s), start rate, end rate, cumulative count at start
	t0, r0, r1, n0 []float64
	total          float64
}

// NewStages validates stages and precomputes their cumulative counts.
func NewStages(st []Stage) (*Stages, error) {
	if len(st) == 0 {
		return nil, errors.New("stages: at least one stage")
	}
	s := &Stages{stages: st}
	t, prev, n := 0.0, 0.0, 0.0
	for i, x := range st {
		if x.Duration <= 0 {
			return nil, fmt.Errorf("stage %d: duration %v must be positive", i+1, x.Duration)
		}
		if x.Rate < 0 || math.IsNaN(x.Rate) || math.IsInf(x.Rate, 0) {
			return nil, fmt.Errorf("stage %d: rate %v must be a finite number ≥ 0", i+1, x.Rate)
		}
		start := x.Rate
		if x.Ramp {
			start = prev
		}
		d := x.Duration.Seconds()
		s.t0, s.r0, s.r1, s.n0 = append(s.t0, t), append(s.r0, start), append(s.r1, x.Rate), append(s.n0, n)
		n += (start + x.Rate) / 2 * d
		t += d
		prev = x.Rate
	}
	s.total = n
	return s, nil
}

// Total is the number of requests the stages send.
func (s *Stages) Total() int64 { return int64(math.Floor(s.total-1e-9)) + 1 }

// Offset implements Schedule by inverting the cumulative count.
func (s *Stages) Offset(i int64) (time.Duration, bool) {
	target := float64(i)
	if i < 0 || target > s.total-1e-9 {
		return 0, false
	}
	// The last stage starting at or below the count: stages that send
	// nothing share their start count with the next one, so they are skipped.
	k := sort.Search(len(s.n0), func(j int) bool { return s.n0[j] > target }) - 1
	need := target - s.n0[k]
	d := s.stages[k].Duration.Seconds()
	a := (s.r1[k] - s.r0[k]) / d // rate slope
	var dt float64
	if math.Abs(a) < 1e-12 {
		if s.r0[k] == 0 {
			return 0, false
		}
		dt = need / s.r0[k]
	} else {
		// need = r0*dt + a*dt²/2
		disc := s.r0[k]*s.r0[k] + 2*a*need
		if disc < 0 {
			disc = 0
		}
		dt = (-s.r0[k] + math.Sqrt(disc)) / a
	}
	dt = math.Min(math.Max(dt, 0), d)
	return time.Duration((s.t0[k] + dt) * 1e9), true
}

// Poisson sends requests as a Poisson process of rate Rate, seeded. It is a
// pure function of the index: time is cut into windows of fixed length, each
// window's count is drawn from Poisson(Rate × window) with a generator seeded
// by (Seed, window), and a window's arrivals are uniform order statistics
// drawn from a generator seeded by (Seed, window, 1). That is exactly a
// homogeneous Poisson process, and any request's offset is computed without
// the ones before it (only the window counts are precomputed).
type Poisson struct {
	Rate   float64
	Seed   uint64
	window float64 // seconds
	prefix []int64 // prefix[w] = arrivals before window w
	// what it was made for (NewPoisson), to make it again elsewhere
	horizon  time.Duration
	requests int64
}

// poissonWindowArrivals is the expected number of arrivals per window.
const poissonWindowArrivals = 32

// NewPoisson precomputes window counts for horizon (duration) or until
// requests arrivals, whichever is set (both zero: an error).
func NewPoisson(rate float64, seed uint64, horizon time.Duration, requests int64) (*Poisson, error) {
	if rate <= 0 || math.IsNaN(rate) || math.IsInf(rate, 0) {
		return nil, fmt.Errorf("poisson: rate %v must be positive", rate)
	}
	if horizon <= 0 && requests <= 0 {
		return nil, errors.New("poisson: needs a duration or a request count")
	}
	p := &Poisson{Rate: rate, Seed: seed, window: poissonWindowArrivals / rate, horizon: horizon, requests: requests}
	p.prefix = []int64{0}
	for w := 0; ; w++ {
		if horizon > 0 && float64(w)*p.window >= horizon.Seconds() {
			break
		}
		if horizon <= 0 && p.prefix[w] >= requests {
			break
		}
		if w > 50_000_000 {
			return nil, errors.New("poisson: schedule too long")
		}
		n := poissonSample(rand.New(rand.NewPCG(seed, uint64(w)<<1)), rate*p.window)
		p.prefix = append(p.prefix, p.prefix[w]+n)
	}
	return p, nil
}

// poissonSample draws from Poisson(mean) by inversion (mean is small: ~32).
func poissonSample(r *rand.Rand, mean float64) int64 {
	l := math.Exp(-mean)
	if l == 0 {
		// Normal approximation for a large mean.
		return max(0, int64(math.Round(mean+math.Sqrt(mean)*r.NormFloat64())))
	}
	var k int64
	p := r.Float64()
	cum := l
	term := l
	for p > cum {
		k++
		term *= mean / float64(k)
		cum += term
		if k > 10000 {
			break
		}
	}
	return k
}

// Offset implements Schedule.
func (p *Poisson) Offset(i int64) (time.Duration, bool) {
	last := p.prefix[len(p.prefix)-1]
	if i < 0 || i >= last {
		return 0, false
	}
	w := sort.Search(len(p.prefix), func(j int) bool { return p.prefix[j] > i }) - 1
	n := p.prefix[w+1] - p.prefix[w]
	k := i - p.prefix[w] // 0-based rank within the window
	// The (k+1)-th of n sorted uniforms is S_{k+1}/S_{n+1}, S partial sums of
	// unit exponentials.
	g := windowRands.Get().(*windowRand)
	defer windowRands.Put(g)
	g.pcg.Seed(p.Seed, uint64(w)<<1|1) // as rand.New(rand.NewPCG(Seed, w<<1|1)), without allocating
	r := g.r
	var s, sk float64
	for j := int64(0); j <= n; j++ {
		s += r.ExpFloat64()
		if j == k {
			sk = s
		}
	}
	return time.Duration((float64(w) + sk/s) * p.window * 1e9), true
}

// windowRand is the generator Poisson.Offset re-seeds for each call: pooled,
// so that the pacer's per-request call allocates nothing (a generator made
// per call escaped to the heap: 16 B a request, and so garbage collections
// during long runs) while Offset stays safe for concurrent use.
type windowRand struct {
	pcg rand.PCG
	r   *rand.Rand
}

var windowRands = sync.Pool{New: func() any {
	g := &windowRand{}
	g.r = rand.New(&g.pcg)
	return g
}}

// Limit stops a schedule at a duration and/or a request count (0: no limit).
type Limit struct {
	S        Schedule
	Duration time.Duration
	Requests int64
}

// Offset implements Schedule.
func (l Limit) Offset(i int64) (time.Duration, bool) {
	if l.Requests > 0 && i >= l.Requests {
		return 0, false
	}
	off, ok := l.S.Offset(i)
	if !ok || (l.Duration > 0 && off >= l.Duration) {
		return 0, false
	}
	return off, true
}

// cutter is a schedule that knows whether a duration ended it: cutAt(n) is
// that duration when it ended the schedule after n arrivals, else 0. An
// open loop's window is then that duration (Open.span), however long before
// it the last arrival came.
type cutter interface{ cutAt(n int64) time.Duration }

// cutAt is the limit's duration when it is what ended the schedule after n
// arrivals (the schedule had one more, at or after the duration), else 0.
func (l Limit) cutAt(n int64) time.Duration {
	if l.Duration <= 0 || (l.Requests > 0 && n >= l.Requests) {
		return 0
	}
	if off, ok := l.S.Offset(n); ok && off >= l.Duration {
		return l.Duration
	}
	return 0
}
