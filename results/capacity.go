package results

import "strings"

// CapacityStep is one step of kind capacity's search (or its validation
// run): the rate it offered, what the SLO said of it, and the goodput.
type CapacityStep struct {
	// Phase is search or validate; Step numbers the search's steps from 1.
	Phase string `json:"phase"`
	Step  int    `json:"step"`
	// RateRPS is the offered rate.
	RateRPS float64 `json:"rate_rps"`
	// Verdict: meets, misses or invalid (the generator was starved: the
	// step is run again), with the reason.
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	// QuantileMs is the SLO's percentile of the successes' latency and
	// QuantileHiMs its within-run interval's upper bound, which must be
	// under the SLO for the step to meet it (absent: too few samples).
	QuantileMs   *float64 `json:"quantile_ms,omitempty"`
	QuantileHiMs *float64 `json:"quantile_hi_ms,omitempty"`
	// ErrorShare is failed ÷ all requests of the step.
	ErrorShare float64 `json:"error_share"`
	// GoodputRPS is the successful requests per second within the SLO's
	// latency.
	GoodputRPS float64 `json:"goodput_rps"`
}

// The verdicts of a capacity step.
const (
	Meets   = "meets"
	Misses  = "misses"
	Invalid = "invalid"
)

// CapacityBase is a capacity cell's key without its rate and phase: the
// search it belongs to (function and grid point).
func CapacityBase(key string) string {
	if i := strings.LastIndex(key, "/rate="); i >= 0 {
		return key[:i]
	}
	return key
}
