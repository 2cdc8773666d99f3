package load

import (
	"testing"
	"time"
)

func TestMonitorSeesItsOwnCPU(t *testing.T) {
	m := StartMonitor(time.Now(), 100*time.Millisecond)
	// Burn CPU for ~350 ms.
	end := time.Now().Add(350 * time.Millisecond)
	x := 0
	for time.Now().Before(end) {
		x++
	}
	ws := m.Stop()
	if len(ws) < 2 {
		t.Fatalf("%d windows", len(ws))
	}
	busy := 0
	for _, w := range ws {
		if w.CPU > 0.5 {
			busy++
		}
		if w.Steal < 0 || w.Steal > 1 {
			t.Fatalf("steal %v", w.Steal)
		}
	}
	if busy == 0 {
		t.Fatalf("a busy loop was not seen: %+v (x=%d)", ws, x)
	}
}

func TestJudge(t *testing.T) {
	res := &Result{Recorder: NewRecorder(0), OfferedRate: 1000, ScheduleSpan: time.Second}
	for i := 0; i < 1000; i++ {
		res.Record(&Sample{Intended: time.Duration(i) * time.Millisecond, Sent: time.Duration(i)*time.Millisecond + 20*time.Microsecond, Done: time.Duration(i)*time.Millisecond + time.Millisecond})
	}
	if v := Judge(res, nil, 1, DefaultThresholds); !v.Valid {
		t.Fatalf("a good run judged invalid: %v", v.Reasons)
	}
	short := &Result{Recorder: NewRecorder(0), OfferedRate: 1000, ScheduleSpan: time.Second}
	for i := 0; i < 900; i++ {
		short.Record(&Sample{Intended: 0, Sent: 50 * time.Millisecond, Done: 60 * time.Millisecond})
	}
	v := Judge(short, []GeneratorWindow{{Second: 0, CPU: 0.99, Steal: 0.2}}, 1, DefaultThresholds)
	if v.Valid || len(v.Reasons) != 3 || len(v.Warnings) != 1 {
		t.Fatalf("want 3 reasons (shortfall, lag, steal) and a saturation warning: %+v", v)
	}
	closed := &Result{Recorder: NewRecorder(0)}
	closed.Closed = true
	if v := Judge(closed, nil, 1, DefaultThresholds); !v.Valid {
		t.Fatalf("closed loop judged on open-loop rules: %v", v.Reasons)
	}
}
