package load

import (
	"testing"
	"time"
)

// The monitor tells a busy generator from an idle one. Compared within the
// run rather than against a fixed share of a core: with the other test
// packages running beside it on two cores, a busy loop gets well under one.
func TestMonitorSeesItsOwnCPU(t *testing.T) {
	m := StartMonitor(time.Now(), 100*time.Millisecond)
	time.Sleep(400 * time.Millisecond) // idle
	end := time.Now().Add(400 * time.Millisecond)
	x := 0
	for time.Now().Before(end) { // busy
		x++
	}
	ws := m.Stop()
	if len(ws) < 6 {
		t.Fatalf("%d windows in 800 ms of 100 ms", len(ws))
	}
	var idle, busy float64
	for i, w := range ws {
		if w.Steal < 0 || w.Steal > 1 || w.CPU < 0 {
			t.Fatalf("window %d: %+v", i, w)
		}
		switch {
		case i >= 1 && i <= 2: // well inside the idle part
			idle = max(idle, w.CPU)
		case i >= 5 && i <= 6: // well inside the busy part
			busy = max(busy, w.CPU)
		}
	}
	if busy < 0.1 || busy < idle+0.1 {
		t.Fatalf("a busy loop was not seen: idle %.3f cores, busy %.3f: %+v (x=%d)", idle, busy, ws, x)
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
