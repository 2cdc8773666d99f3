package observe

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
)

// componentMeter is a platform whose components' counters the test sets.
type componentMeter struct {
	hostMeter
	us []platform.ComponentUsage
}

func (m *componentMeter) SampleComponents(context.Context) ([]platform.ComponentUsage, error) {
	return m.us, nil
}

// Rates come from the cumulative counters per instance; a component's
// instances add up; a new instance (a restarted daemon: its counter starts
// again) counts from zero; the first call is only the baseline.
func TestComponentRatesFromCounters(t *testing.T) {
	m := &componentMeter{us: []platform.ComponentUsage{
		{Component: "activator", Instance: "a-1", CPUNs: 1e9, MemoryBytes: 10 << 20},
		{Component: "activator", Instance: "a-2", CPUNs: 2e9, MemoryBytes: 20 << 20},
		{Component: "daemon", Instance: "100", CPUNs: 5e9, MemoryBytes: 8 << 20},
	}}
	c := newComponentRates(m)
	start := time.Now()
	if got := c.sample(context.Background(), start); got != nil {
		t.Fatalf("first sample %+v: want only a baseline", got)
	}
	c.prevAt = c.prevAt.Add(-2 * time.Second) // as if two seconds had passed
	m.us = []platform.ComponentUsage{
		{Component: "activator", Instance: "a-1", CPUNs: 2e9, MemoryBytes: 12 << 20},
		{Component: "activator", Instance: "a-2", CPUNs: 3e9, MemoryBytes: 20 << 20},
		{Component: "daemon", Instance: "200", CPUNs: 0.5e9, MemoryBytes: 9 << 20}, // restarted
	}
	got := c.sample(context.Background(), start)
	if len(got) != 2 || got[0].Component != "activator" || got[1].Component != "daemon" {
		t.Fatalf("samples %+v", got)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.01 }
	if got[0].Instances != 2 || !near(got[0].CPUCores, 1.0) || !near(got[0].MemoryMiB, 32) {
		t.Errorf("activator %+v: want 2 instances, (1+1) s over 2 s = 1 core, 32 MiB", got[0])
	}
	if !near(got[1].CPUCores, 0.25) || !near(got[1].MemoryMiB, 9) {
		t.Errorf("daemon %+v: want 0.5 s over 2 s from the new instance's zero", got[1])
	}
}
