package load

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The monitor's CPU is the process's: over a busy second its windows add
// up to the CPU the kernel's process clock (CLOCK_PROCESS_CPUTIME_ID, read
// apart from the monitor's getrusage) says the process used, however
// little of a core the loop got beside the other test packages. A monitor
// that under-reports (or reads another clock) is off by far more than one
// sampling interval of slack.
func TestMonitorSeesItsOwnCPU(t *testing.T) {
	const interval = 100 * time.Millisecond
	cpuNow := func() time.Duration {
		var ts unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ts.Nano())
	}
	before := cpuNow()
	m := StartMonitor(time.Now(), interval)
	end := time.Now().Add(time.Second)
	x := 0
	for time.Now().Before(end) { // busy
		x++
	}
	used := cpuNow() - before
	ws := m.Stop()
	if len(ws) < 8 {
		t.Fatalf("%d windows in a second of %v", len(ws), interval)
	}
	var seen time.Duration
	for i, w := range ws {
		if w.Steal < 0 || w.Steal > 1 || w.CPU < 0 {
			t.Fatalf("window %d: %+v", i, w)
		}
		seen += time.Duration(w.CPU * float64(interval))
	}
	// The windows cover all but the last partial interval: slack of one
	// interval at the loop's share of a core, and 15 % for the intervals'
	// own jitter.
	share := used.Seconds() / time.Second.Seconds()
	slack := time.Duration(float64(interval)*share) + used*15/100 + 10*time.Millisecond
	if d := seen - used; d < -slack || d > slack {
		t.Fatalf("the monitor saw %v of CPU, the process clock %v (± %v): %+v (x=%d)", seen, used, slack, ws, x)
	}
	if share < 0.05 {
		t.Logf("the busy loop got %.2f of a core: a weak check", share)
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

// Each validity check alone makes a good run invalid (or, saturation, warns),
// and says which: a check that never fires would pass every run.
func TestJudgeEachCheckAlone(t *testing.T) {
	good := func() *Result {
		res := &Result{Recorder: NewRecorder(0), OfferedRate: 1000, ScheduleSpan: time.Second}
		for i := 0; i < 1000; i++ {
			at := time.Duration(i) * time.Millisecond
			res.Record(&Sample{Intended: at, Sent: at + 20*time.Microsecond, Done: at + time.Millisecond, Class: ClassOK})
		}
		return res
	}
	quiet := []GeneratorWindow{{Second: 0, CPU: 0.3, Steal: 0.01}}
	if v := Judge(good(), quiet, 1, DefaultThresholds); !v.Valid || len(v.Warnings) != 0 {
		t.Fatalf("the good run: %+v", v)
	}
	short := good()
	for i := 0; i < 10; i++ { // 1 % of the schedule never sent: over the 0.5 % allowed
		short.Record(&Sample{Intended: time.Second, Sent: time.Second, Done: time.Second, Class: ClassGeneratorLag})
	}
	short.OfferedRate = 1010
	late := good()
	for i := 0; i < 20; i++ { // 2 % sent 50 ms late: the lag's p99 over 10 ms
		late.Record(&Sample{Intended: 0, Sent: 50 * time.Millisecond, Done: 51 * time.Millisecond, Class: ClassOK})
	}
	late.OfferedRate = 1020
	for _, c := range []struct {
		name string
		res  *Result
		gen  []GeneratorWindow
		want string
	}{
		{"a share of the schedule never sent", short, quiet, "the generator sent 1000 of 1010"},
		{"requests sent late", late, quiet, "generator lag p99"},
		{"the hypervisor stealing", good(), []GeneratorWindow{{Second: 0, CPU: 0.3, Steal: 0.2}}, "stole 20.0%"},
	} {
		v := Judge(c.res, c.gen, 1, DefaultThresholds)
		if v.Valid || len(v.Reasons) != 1 || !strings.Contains(v.Reasons[0], c.want) {
			t.Errorf("%s: %+v, want invalid for %q alone", c.name, v, c.want)
		}
		// Only the hypervisor's steal is the machine's fault (measured again).
		if v.Stolen != strings.Contains(c.want, "stole") {
			t.Errorf("%s: stolen %v", c.name, v.Stolen)
		}
	}
	v := Judge(good(), []GeneratorWindow{{Second: 0, CPU: 0.99}}, 1, DefaultThresholds)
	if !v.Valid || len(v.Warnings) != 1 || !strings.Contains(v.Warnings[0], "the generator used 99%") {
		t.Errorf("a saturated generator: %+v, want a warning", v)
	}
}
