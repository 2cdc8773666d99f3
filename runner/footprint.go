package runner

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
)

// defaultIdleWindow is how long the platform's idle footprint is sampled
// before the first cell, when the spec does not say (platform.idle_window).
const defaultIdleWindow = 2 * time.Second

// idleWindowMax bounds the idle window while it waits for two samples.
const idleWindowMax = 15 * time.Second

// footprint adds up component samples taken every interval: the mean use
// per sampling instant (every component together, and each one).
func footprint(samples []observe.ComponentSample, interval time.Duration) *results.Footprint {
	if len(samples) == 0 {
		return nil
	}
	ticks := map[int64]float64{} // sampling instant -> every component's cores
	type sum struct{ cores, mib float64 }
	by := map[string]*sum{}
	f := &results.Footprint{}
	for _, s := range samples {
		ticks[s.TMs] += s.CPUCores
		if by[s.Component] == nil {
			by[s.Component] = &sum{}
		}
		by[s.Component].cores += s.CPUCores
		by[s.Component].mib += s.MemoryMiB
		f.CPUCores += s.CPUCores
		f.MemoryMiB += s.MemoryMiB
	}
	n := float64(len(ticks))
	f.Samples = len(ticks)
	f.Seconds = n * interval.Seconds()
	f.CPUSeconds = f.CPUCores * interval.Seconds()
	f.CPUCores /= n
	f.MemoryMiB /= n
	for name, s := range by {
		f.Components = append(f.Components, results.ComponentFootprint{Component: name, CPUCores: s.cores / n, MemoryMiB: s.mib / n})
	}
	sort.Slice(f.Components, func(i, j int) bool { return f.Components[i].Component < f.Components[j].Component })
	still := 0
	for _, cores := range ticks {
		if cores == 0 {
			still++
		}
	}
	if 2*still > len(ticks) {
		f.Note = fmt.Sprintf("the components' CPU counters did not move in %d of %d samples: their source refreshes less often than this window (the kubelets' summary: about every 10 s); the CPU figure is not to be trusted", still, len(ticks))
	}
	return f
}

// cellFootprint is the platform's footprint under cell out's load, with
// its CPU-seconds per million successful invocations.
func cellFootprint(tl *observe.TimelineRecorder, out *results.Cell) *results.Footprint {
	from := out.StartedAt.Sub(tl.Started()).Milliseconds()
	f := footprint(tl.ComponentWindow(from, from+int64(out.ElapsedS*1000)))
	if f != nil && out.Requests.Succeeded > 0 {
		v := f.CPUSeconds * 1e6 / float64(out.Requests.Succeeded)
		f.PerMillionCPUSeconds = &v
	}
	return f
}

// idleFootprint waits window with the functions deployed and no load, and
// returns the platform's footprint over it (nil: the platform says none,
// the window is 0, or no sample came).
func (c *cells) idleFootprint(ctx context.Context, tl *observe.TimelineRecorder) *results.Footprint {
	window := defaultIdleWindow
	if w := c.sp.Platform.IdleWindow; w != nil {
		window = w.D()
	}
	if _, ok := c.p.(platform.ComponentSampler); !ok || window <= 0 {
		return nil
	}
	from := time.Since(tl.Started()).Milliseconds()
	select {
	case <-ctx.Done():
		return nil
	case <-time.After(window):
	}
	// A cluster's samples may come slower than the window: wait for two, up to idleWindowMax.
	f := footprint(tl.ComponentWindow(from, time.Since(tl.Started()).Milliseconds()))
	for end := time.Now().Add(idleWindowMax - window); (f == nil || f.Samples < 2) && time.Now().Before(end) && ctx.Err() == nil; {
		time.Sleep(200 * time.Millisecond)
		f = footprint(tl.ComponentWindow(from, time.Since(tl.Started()).Milliseconds()))
	}
	if f != nil {
		fmt.Fprintf(c.o.Log, "platform idle: %.3f cores, %.0f MiB (%d components, %.0f s)\n", f.CPUCores, f.MemoryMiB, len(f.Components), f.Seconds)
		if f.Note != "" {
			fmt.Fprintln(c.o.Log, "  "+f.Note)
		}
	}
	return f
}
