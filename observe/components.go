package observe

import (
	"context"
	"sort"
	"time"

	"github.com/faasbench/faasbench/platform"
)

// ComponentSample is one of the platform's own components (its instances
// together) at one moment: the platform's footprint, not a function's.
type ComponentSample struct {
	TMs       int64   `json:"t_ms"`
	Component string  `json:"component"`
	Instances int     `json:"instances"`
	CPUCores  float64 `json:"cpu_cores"` // since the previous sample
	MemoryMiB float64 `json:"memory_mib"`
}

// componentRates turns a platform's cumulative component figures into rates.
type componentRates struct {
	cs     platform.ComponentSampler
	prev   map[string]int64 // instance -> CPU ns at the previous sample
	prevAt time.Time
}

func newComponentRates(p platform.Platform) *componentRates {
	cs, ok := p.(platform.ComponentSampler)
	if !ok {
		return nil
	}
	return &componentRates{cs: cs, prev: map[string]int64{}}
}

// sample returns one ComponentSample per component, in name order, once
// there was a previous sample. An instance not seen before (started since,
// or a restarted daemon) counts from zero only if the previous sample
// exists: its CPU since its start lies in the interval.
func (c *componentRates) sample(ctx context.Context, start time.Time) []ComponentSample {
	us, err := c.cs.SampleComponents(ctx)
	now := time.Now()
	if err != nil {
		return nil
	}
	dt := now.Sub(c.prevAt).Seconds()
	first := c.prevAt.IsZero()
	by := map[string]*ComponentSample{}
	seen := map[string]int64{}
	for _, u := range us {
		last, ok := c.prev[u.Instance]
		seen[u.Instance] = u.CPUNs
		s := by[u.Component]
		if s == nil {
			s = &ComponentSample{TMs: now.Sub(start).Milliseconds(), Component: u.Component}
			by[u.Component] = s
		}
		s.Instances++
		s.MemoryMiB += float64(u.MemoryBytes) / (1 << 20)
		if dt > 0 && !first {
			if !ok || u.CPUNs < last {
				last = 0
			}
			s.CPUCores += float64(u.CPUNs-last) / 1e9 / dt
		}
	}
	c.prev, c.prevAt = seen, now
	if first {
		return nil
	}
	out := make([]ComponentSample, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Component < out[j].Component })
	return out
}

// ComponentWindow is a copy of the component samples taken between from and
// to (ms since Start), and the sampling interval.
func (r *TimelineRecorder) ComponentWindow(from, to int64) ([]ComponentSample, time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []ComponentSample
	for _, s := range r.tl.Components {
		if s.TMs > from && s.TMs <= to {
			out = append(out, s)
		}
	}
	return out, time.Duration(r.tl.IntervalMs) * time.Millisecond
}
