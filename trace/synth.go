package trace

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The published distributions Synthesize follows (Shahrad et al., "Serverless
// in the Wild", USENIX ATC 2020, section 3), as the paper states them:
//   - invocations per day: Figure 5(a), 45 % of applications are invoked once
//     per hour or less on average and 81 % once per minute or less; a
//     log-normal through those two points (the fit is ours, the points are
//     the paper's), applied per function;
//   - execution time: the paper's log-normal fit of the functions' average
//     execution times, ln-seconds mean -0.38 and sigma 2.36 (Figure 7);
//   - allocated memory: the paper's Burr XII fit of the applications'
//     average allocated memory, c = 11.652, k = 0.221, lambda = 107.083 MB
//     (Figure 8).
//
// What the paper gives no figure for is kept simple and said: each function
// is its own application, every trigger is http, a function's invocations
// in a minute are Poisson around its day's mean (no diurnal shape), all its
// invocations take its average time, and an execution time over MaxDuration
// is drawn again (the replay fits each invocation in its minute).
const (
	hourlyOrLess     = 0.45 // share of applications invoked at most once per hour (24 a day)
	minutelyOrLess   = 0.81 // share invoked at most once per minute (1440 a day)
	execLogMean      = -0.38
	execLogSigma     = 2.36
	burrC            = 11.652
	burrK            = 0.221
	burrLambdaMB     = 107.083
	maxDailyPerCount = math.MaxInt32
)

// SynthOptions are what Synthesize makes.
type SynthOptions struct {
	Functions int    // how many functions
	Minutes   int    // minutes of the trace (1..1440; default 1440)
	Seed      uint64 // the same seed makes the same trace
	// MaxDuration caps the execution times (default one minute).
	MaxDuration float64 // ms
}

// DailyRate is the log-normal of invocations per day through the paper's two
// points: ln-mean and ln-sigma.
func DailyRate() (mu, sigma float64) {
	z45, z81 := normalQuantile(hourlyOrLess), normalQuantile(minutelyOrLess)
	sigma = (math.Log(1440) - math.Log(24)) / (z81 - z45)
	mu = math.Log(24) - z45*sigma
	return mu, sigma
}

// normalQuantile is the standard normal's inverse CDF.
func normalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// Synthesize makes a trace in the 2019 format whose functions follow the
// published distributions above.
func Synthesize(o SynthOptions) (*Trace, error) {
	if o.Functions < 1 || o.Functions > MaxFunctions {
		return nil, fmt.Errorf("functions: %d is not in 1..%d", o.Functions, MaxFunctions)
	}
	if o.Minutes == 0 {
		o.Minutes = MinuteColumns
	}
	if o.Minutes < 1 || o.Minutes > MinuteColumns {
		return nil, fmt.Errorf("minutes: %d is not in 1..%d", o.Minutes, MinuteColumns)
	}
	maxMs := o.MaxDuration
	if maxMs <= 0 {
		maxMs = 60_000
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x7472616365)) //nolint:gosec // a reproducible synthetic trace, not a secret
	mu, sigma := DailyRate()
	t := &Trace{Minutes: o.Minutes}
	for i := 0; i < o.Functions; i++ {
		f := Function{Owner: hash(rng), App: hash(rng), Name: hash(rng), Trigger: "http", PerMinute: make([]int32, o.Minutes)}
		perMinute := math.Exp(mu+sigma*rng.NormFloat64()) / 1440
		for m := range f.PerMinute {
			f.PerMinute[m] = int32(min(poisson(rng, perMinute), maxDailyPerCount))
		}
		var ms float64
		for {
			ms = 1000 * math.Exp(execLogMean+execLogSigma*rng.NormFloat64())
			if ms <= maxMs {
				break
			}
		}
		f.Duration = flat(ms, f.Invocations(), durationQuantiles)
		u := rng.Float64()
		mb := burrLambdaMB * math.Pow(math.Pow(1-u, -1/burrK)-1, 1/burrC)
		f.MemoryMB = flat(mb, int64(o.Minutes)*12, memoryQuantiles) // a sample every 5 s, averaged per minute
		t.Functions = append(t.Functions, f)
	}
	return t, nil
}

// flat is a summary whose every point (at qs) is v.
func flat(v float64, count int64, qs []float64) *Percentiles {
	p := &Percentiles{Average: v, Count: count, Min: v, Max: v}
	for _, q := range qs {
		p.Points = append(p.Points, Point{Q: q, V: v})
	}
	return p
}

func hash(rng *rand.Rand) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 64)
	for i := range b {
		b[i] = hex[rng.IntN(16)]
	}
	return string(b)
}

// poisson draws a Poisson count of mean lambda: by inversion for small
// means, a rounded normal for large ones (over 500, where the two differ by
// less than the count's own spread).
func poisson(rng *rand.Rand, lambda float64) int64 {
	if lambda <= 0 {
		return 0
	}
	if lambda > 500 {
		return max(0, int64(math.Round(lambda+math.Sqrt(lambda)*rng.NormFloat64())))
	}
	l := math.Exp(-lambda)
	var k int64
	for p := rng.Float64(); p > l; p *= rng.Float64() {
		k++
	}
	return k
}
