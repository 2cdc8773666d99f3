package runner

import (
	"math"
	"testing"
	"time"

	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/spec"
)

// A known answer: 4 one-second samples of 2 ready instances limited to
// 0.5 CPU and 512 MiB, using 0.6 cores and 300 MiB together, for 2000
// successful invocations: 2.4 CPU-s and 1.171875 GB-s used, 4 CPU-s and 4
// GB-s allocated; per million, ×500; at 0.04 per vCPU-hour, 0.005 per
// GB-hour and 0.20 per million requests.
func TestEfficiencyKnownAnswer(t *testing.T) {
	var samples []observe.TimelineSample
	for i := range 4 {
		samples = append(samples, observe.TimelineSample{TMs: int64(1000 * (i + 1)), Ready: 2, CPUCores: 0.6, MemoryMiB: 300})
	}
	fn := platform.Function{CPUs: 0.5, MemoryMB: 512}
	price := &spec.CostSpec{VCPUHour: 0.04, GBHour: 0.005, PerMillionRequests: 0.2}
	e := efficiency(samples, time.Second, fn, 2000, price)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(e.CPUSecondsUsed, 2.4) || !near(e.GBSecondsUsed, 300.0/1024*4) || !near(*e.CPUSecondsAllocated, 4) || !near(*e.GBSecondsAllocated, 4) {
		t.Errorf("efficiency %+v", e)
	}
	if !near(e.PerMillion.CPUSecondsUsed, 1200) || !near(*e.PerMillion.GBSecondsAllocated, 2000) {
		t.Errorf("per million %+v", e.PerMillion)
	}
	wantUsed := 1200.0/3600*0.04 + 300.0/1024*4*500/3600*0.005 + 0.2
	wantAlloc := 2000.0/3600*0.04 + 2000.0/3600*0.005 + 0.2
	if e.Cost == nil || e.Cost.Currency != "USD" || !near(e.Cost.PerMillionUsed, wantUsed) || !near(*e.Cost.PerMillionAllocated, wantAlloc) {
		t.Errorf("cost %+v, want %v used and %v allocated", e.Cost, wantUsed, wantAlloc)
	}
	// No limits: nothing allocated, and said why; no samples: said too.
	bare := efficiency(samples, time.Second, platform.Function{}, 2000, nil)
	if bare.CPUSecondsAllocated != nil || bare.Cost != nil || bare.Note == "" {
		t.Errorf("without limits or prices: %+v", bare)
	}
	if none := efficiency(nil, time.Second, fn, 10, price); none.Samples != 0 || none.Note == "" || none.Cost != nil {
		t.Errorf("without samples: %+v", none)
	}
}
