package experiment

import (
	"math"

	"github.com/faasbench/faasbench/results"
)

// Elasticity computes BUNGEE's metrics over the load's seconds: demand is
// what the open loop offered each second (windows' Offered), required is
// ceil(demand ÷ instanceRPS), supply the ready instances of the last
// sample at or before the second's end. nil without a capacity per
// instance or an offered load.
func Elasticity(samples []results.ScalingSample, windows []results.Window, loadS, instanceRPS float64) *results.Elasticity {
	if instanceRPS <= 0 || len(samples) == 0 {
		return nil
	}
	n := min(int(math.Floor(loadS+1e-9)), len(windows)) // whole seconds of load only
	if n < 2 {
		return nil
	}
	e := &results.Elasticity{InstanceRPS: instanceRPS, Seconds: n, RequiredSeries: make([]int, n), SupplySeries: make([]int, n)}
	offered := false
	j := 0
	for t := 0; t < n; t++ {
		d := float64(windows[t].Offered)
		offered = offered || d > 0
		e.RequiredSeries[t] = int(math.Ceil(d / instanceRPS))
		for j+1 < len(samples) && samples[j+1].T <= float64(t+1) {
			j++
		}
		e.SupplySeries[t] = samples[j].Ready
		e.PeakRequired = max(e.PeakRequired, e.RequiredSeries[t])
	}
	if !offered {
		return nil
	}
	initial := samples[0].Ready
	for t := 0; t < n; t++ {
		r, s := e.RequiredSeries[t], e.SupplySeries[t]
		base := float64(max(r, 1))
		if s < r {
			e.AccuracyUnder += float64(r-s) / base
			e.TimeshareUnder++
		}
		if s > r {
			e.AccuracyOver += float64(s-r) / base
			e.TimeshareOver++
		}
		if t > 0 && sign(s-e.SupplySeries[t-1]) != sign(r-e.RequiredSeries[t-1]) {
			e.Instability++
		}
		if e.FirstNewS == nil && s > initial {
			v := float64(t + 1)
			e.FirstNewS = &v
		}
		if e.ToRequiredS == nil && s >= e.PeakRequired {
			v := float64(t + 1)
			e.ToRequiredS = &v
		}
	}
	pct := 100 / float64(n)
	e.AccuracyUnder *= pct
	e.AccuracyOver *= pct
	e.TimeshareUnder *= pct
	e.TimeshareOver *= pct
	e.Instability *= 100 / float64(n-1)
	return e
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
