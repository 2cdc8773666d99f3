package load

import (
	"testing"
	"time"
)

// GeneratorFault knows Judge's own reasons for the steal, the lag and a
// saturated generator, bare, as a cell's warning or for one generator of
// several, and nothing else: not the shortfall of the schedule, not a
// platform's reason, not a look-alike.
func TestGeneratorFault(t *testing.T) {
	late := &Result{Recorder: NewRecorder(0), OfferedRate: 1000, ScheduleSpan: time.Second}
	for i := 0; i < 1000; i++ {
		late.Record(&Sample{Intended: 0, Sent: 50 * time.Millisecond, Done: 51 * time.Millisecond, Class: ClassOK})
	}
	v := Judge(late, []GeneratorWindow{{Second: 3, Steal: 0.2}}, 1, DefaultThresholds)
	if len(v.Reasons) != 2 {
		t.Fatalf("want the lag and the steal: %q", v.Reasons)
	}
	hot := Judge(&Result{Recorder: NewRecorder(0)}, []GeneratorWindow{{Second: 2, CPU: 0.99}}, 1, DefaultThresholds).Warnings
	if len(hot) != 1 {
		t.Fatalf("want the saturation warning: %q", hot)
	}
	for _, r := range append(v.Reasons, hot...) {
		if !GeneratorFault(r) || !GeneratorFault("invalid: "+r) || !GeneratorFault("invalid: "+GeneratorReason(1, "vm", r)) {
			t.Errorf("Judge's %q not known (bare, as a warning, or for one generator of several)", r)
		}
	}
	short := &Result{Recorder: NewRecorder(0), OfferedRate: 1000, ScheduleSpan: time.Second}
	shortfall := Judge(short, nil, 1, DefaultThresholds).Reasons
	if len(shortfall) != 1 {
		t.Fatalf("want the shortfall alone: %q", shortfall)
	}
	for _, r := range append(shortfall, "", "invalid: no successful request", "invalid: second x: the hypervisor stole 9% of CPU time",
		"invalid: cell 3: the hypervisor stole 9%", "hello/c=1: invalid: generator lag p99 20ms exceeds 10ms",
		"invalid: "+GeneratorReason(1, "vm", "no successful request"), "invalid: generator x (vm): generator lag p99 20ms") {
		if GeneratorFault(r) {
			t.Errorf("%q taken for the generator's fault", r)
		}
	}
}
