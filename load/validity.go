package load

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Thresholds decide when a run's figures are the generator's, not the
// server's.
type Thresholds struct {
	// MinSentShare: an open loop that sent less than this share of its
	// schedule is invalid (default 0.995).
	MinSentShare float64
	// MaxLagP99: an open loop whose generator lag p99 exceeds this is
	// invalid (default 10 ms).
	MaxLagP99 time.Duration
	// MaxSteal: a window in which the hypervisor stole more than this share
	// of CPU time makes the run invalid (default 0.05).
	MaxSteal float64
	// Saturated: the generator using more than this share of its CPU budget
	// in a window gives a warning (default 0.95).
	Saturated float64
}

// DefaultThresholds are the defaults above.
var DefaultThresholds = Thresholds{MinSentShare: 0.995, MaxLagP99: 10 * time.Millisecond, MaxSteal: 0.05, Saturated: 0.95}

// Verdict is whether a run's figures can be trusted, and why not.
type Verdict struct {
	Valid    bool
	Reasons  []string // why invalid
	Warnings []string
	// Stolen: one of the reasons is the hypervisor's steal, a fault of the
	// machine, not of the platform or the load: measuring again may do.
	Stolen bool
}

// Judge applies th to a result and the generator's windows.
func Judge(res *Result, gen []GeneratorWindow, cores int, th Thresholds) Verdict {
	v := Verdict{Valid: true}
	invalid := func(format string, args ...any) {
		v.Valid = false
		v.Reasons = append(v.Reasons, fmt.Sprintf(format, args...))
	}
	if !res.Closed && res.OfferedRate > 0 && !res.Interrupted {
		scheduled := res.OfferedRate * res.ScheduleSpan.Seconds()
		if sent := float64(res.Sent()); sent < th.MinSentShare*scheduled {
			invalid("the generator sent %.0f of %.0f scheduled requests (%.2f%%, threshold %.1f%%)", sent, scheduled, 100*sent/scheduled, 100*th.MinSentShare)
		}
		if lag := time.Duration(res.LagHist().Quantile(0.99)); lag > th.MaxLagP99 {
			invalid(lagReason+"%v exceeds %v: requests were sent late (in-flight bound reached or generator too slow)", lag.Round(time.Microsecond), th.MaxLagP99)
		}
	}
	for _, w := range gen {
		if w.Steal > th.MaxSteal {
			invalid("second %d"+stealReason+"%.1f%% of CPU time (threshold %.1f%%)", w.Second, 100*w.Steal, 100*th.MaxSteal)
			v.Stolen = true
			break
		}
	}
	for _, w := range gen {
		if cores > 0 && w.CPU > th.Saturated*float64(cores) {
			v.Warnings = append(v.Warnings, fmt.Sprintf("second %d"+saturatedReason+"%.0f%% of its %d CPU(s): the figures may show the generator's limit", w.Second, 100*w.CPU/float64(cores), cores))
			break
		}
	}
	return v
}

// lagReason, stealReason and saturatedReason mark Judge's reasons (and
// its saturation warning, a reason with several generators) that blame the
// generator's side (GeneratorFault).
const (
	lagReason       = "generator lag p99 "
	stealReason     = ": the hypervisor stole "
	saturatedReason = ": the generator used "
)

// GeneratorReason is one of Judge's reasons for the windows of generator
// index of several (on host), as a cell says it.
func GeneratorReason(index int, host, reason string) string {
	return fmt.Sprintf("generator %d (%s): %s", index, host, reason)
}

// GeneratorFault reports whether one of Judge's reasons (alone, or as a
// cell's warning after "invalid: ", for one generator of several after
// GeneratorReason's prefix) blames the generator's side rather than the
// platform's answers: a second in which the hypervisor stole the machine's
// CPU time or the generator used all of its own, or a generator that sent
// late (too slow, or its in-flight bound full). Measuring again on a
// quieter machine may do; a test of the tool's plumbing, not of a
// platform's figures, forgives them.
func GeneratorFault(reason string) bool {
	r := strings.TrimPrefix(reason, "invalid: ")
	if rest, ok := strings.CutPrefix(r, "generator "); ok {
		n, after, found := strings.Cut(rest, " (")
		_, host, hostOK := strings.Cut(after, "): ")
		if _, err := strconv.Atoi(n); found && hostOK && err == nil {
			r = host
		}
	}
	if strings.HasPrefix(r, lagReason) {
		return true
	}
	for _, mark := range []string{stealReason, saturatedReason} {
		sec, _, ok := strings.Cut(r, mark)
		n, isSecond := strings.CutPrefix(sec, "second ")
		if _, err := strconv.Atoi(n); ok && isSecond && err == nil {
			return true
		}
	}
	return false
}
