package runner

import (
	"time"

	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// efficiencyOf is what cell out's successful invocations cost, from the
// timeline's samples of its function over the cell (fn: the function as
// deployed, with its limits; price: the spec's price model, or nil).
func efficiencyOf(tl *observe.TimelineRecorder, out *results.Cell, fn platform.Function, price *spec.CostSpec) *results.Efficiency {
	from := out.StartedAt.Sub(tl.Started()).Milliseconds()
	to := from + int64(out.ElapsedS*1000)
	samples, interval := tl.Window(out.Function, from, to)
	return efficiency(samples, interval, fn, out.Requests.Succeeded, price)
}

// efficiency adds up samples taken every interval: each sample's CPU (in
// cores, averaged since the previous one) and memory held for one
// interval; allocated, each ready instance's limits for one interval.
func efficiency(samples []observe.TimelineSample, interval time.Duration, fn platform.Function, succeeded int64, price *spec.CostSpec) *results.Efficiency {
	e := &results.Efficiency{Samples: len(samples)}
	if len(samples) == 0 {
		e.Note = "no resource sample over the cell (shorter than the 1 s sampling, or a platform that reports none)"
		return e
	}
	dt := interval.Seconds()
	var cpuAlloc, gbAlloc float64
	for _, s := range samples {
		e.CPUSecondsUsed += s.CPUCores * dt
		e.GBSecondsUsed += s.MemoryMiB / 1024 * dt
		cpuAlloc += fn.CPUs * float64(s.Ready) * dt
		gbAlloc += float64(fn.MemoryMB) / 1024 * float64(s.Ready) * dt
	}
	if fn.CPUs > 0 {
		e.CPUSecondsAllocated = &cpuAlloc
	}
	if fn.MemoryMB > 0 {
		e.GBSecondsAllocated = &gbAlloc
	}
	if fn.CPUs == 0 || fn.MemoryMB == 0 {
		e.Note = "allocated figures need the function's limits (cpus, memory_mb): a limit not set allocates nothing of its own"
	}
	if succeeded == 0 {
		e.Note = "no successful invocation: nothing per million"
		return e
	}
	per := 1e6 / float64(succeeded)
	pm := &e.PerMillion
	pm.CPUSecondsUsed, pm.GBSecondsUsed = e.CPUSecondsUsed*per, e.GBSecondsUsed*per
	if e.CPUSecondsAllocated != nil {
		v := cpuAlloc * per
		pm.CPUSecondsAllocated = &v
	}
	if e.GBSecondsAllocated != nil {
		v := gbAlloc * per
		pm.GBSecondsAllocated = &v
	}
	if price != nil {
		cur := price.Currency
		if cur == "" {
			cur = "USD"
		}
		bill := func(cpuS, gbS float64) float64 {
			return cpuS/3600*price.VCPUHour + gbS/3600*price.GBHour + price.PerMillionRequests
		}
		e.Cost = &results.Cost{Currency: cur, PerMillionUsed: bill(pm.CPUSecondsUsed, pm.GBSecondsUsed)}
		if pm.CPUSecondsAllocated != nil && pm.GBSecondsAllocated != nil {
			v := bill(*pm.CPUSecondsAllocated, *pm.GBSecondsAllocated)
			e.Cost.PerMillionAllocated = &v
		}
	}
	return e
}
