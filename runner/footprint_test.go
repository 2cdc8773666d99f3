package runner

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/observe"
)

// Two components sampled at three instants: the means per instant, the
// CPU-seconds over the window, and each component's own means.
func TestFootprintAddsUpComponentSamples(t *testing.T) {
	s := func(tms int64, c string, cores, mib float64) observe.ComponentSample {
		return observe.ComponentSample{TMs: tms, Component: c, Instances: 1, CPUCores: cores, MemoryMiB: mib}
	}
	f := footprint([]observe.ComponentSample{
		s(1000, "activator", 0.2, 40), s(1000, "autoscaler", 0.1, 30),
		s(2000, "activator", 0.4, 42), s(2000, "autoscaler", 0.1, 30),
		s(3000, "activator", 0.6, 44), s(3000, "autoscaler", 0.1, 30),
	}, time.Second)
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-9 }
	if f.Samples != 3 || !near(f.Seconds, 3) || !near(f.CPUCores, 0.5) || !near(f.CPUSeconds, 1.5) || !near(f.MemoryMiB, 72) {
		t.Errorf("footprint %+v: want 3 samples over 3 s, 0.5 cores, 1.5 CPU-s, 72 MiB", f)
	}
	if len(f.Components) != 2 || f.Components[0].Component != "activator" || !near(f.Components[0].CPUCores, 0.4) ||
		!near(f.Components[0].MemoryMiB, 42) || !near(f.Components[1].CPUCores, 0.1) {
		t.Errorf("components %+v", f.Components)
	}
	if footprint(nil, time.Second) != nil {
		t.Error("no sample: want no footprint")
	}
}

// Counters that did not move in most samples (a source coarser than the
// window) make the CPU figure untrusted, and the footprint says so.
func TestFootprintSaysWhenTheCountersStoodStill(t *testing.T) {
	f := footprint([]observe.ComponentSample{
		{TMs: 1000, Component: "activator", CPUCores: 0, MemoryMiB: 30},
		{TMs: 2000, Component: "activator", CPUCores: 0, MemoryMiB: 30},
		{TMs: 3000, Component: "activator", CPUCores: 0.9, MemoryMiB: 30},
	}, time.Second)
	if !strings.Contains(f.Note, "did not move in 2 of 3 samples") {
		t.Errorf("note %q", f.Note)
	}
}
