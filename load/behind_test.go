package load

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestDueByCountsTheScheduleUpToAnInstant(t *testing.T) {
	scheds := map[string]Schedule{
		"constant": Constant{Rate: 1000},
		"burst":    Burst{Size: 7, Every: 100 * time.Millisecond},
		"limited":  Limit{S: Constant{Rate: 100}, Duration: time.Second},
		"offsets":  Offsets{0, 0, 5 * time.Millisecond, 5 * time.Millisecond, 9 * time.Millisecond},
	}
	for name, s := range scheds {
		var from int64
		for _, at := range []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 99 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond, 2 * time.Second} {
			// By brute force: the indices whose offsets are at or before at.
			var want int64
			for i := int64(0); i < 10000; i++ {
				if off, ok := s.Offset(i); !ok || off > at {
					break
				}
				want++
			}
			got := dueBy(s, at, from)
			if got != want {
				t.Errorf("%s: due by %v: %d, want %d", name, at, got, want)
			}
			from = got
		}
	}
}

func TestBehindJudgesAWindowAndNamesTheCause(t *testing.T) {
	w := &behindWatch{rule: Behind{Share: 0.2, Window: time.Second}, inFlight: 8}
	a := behindMark{at: time.Second, offered: 1000, sent: 1000}
	cases := []struct {
		name string
		b    behindMark
		want string // "" held
	}{
		{"on pace", behindMark{at: 2 * time.Second, offered: 2000, sent: 2000}, ""},
		{"exactly 80 %", behindMark{at: 2 * time.Second, offered: 2000, sent: 1800}, ""},
		{"79 % with slots free", behindMark{at: 2 * time.Second, offered: 2000, sent: 1790}, "790 of the 1000 requests the schedule offered from 1.0 s to 2.0 s went out (79 %"},
		{"79 % with the slots full", behindMark{at: 2 * time.Second, offered: 2000, sent: 1790, fullSeen: 3}, "all 8 in-flight slots were taken"},
		{"too few offered to judge", behindMark{at: 2 * time.Second, offered: 1009, sent: 1000}, ""},
	}
	for _, c := range cases {
		got := w.judge(a, c.b)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := w.judge(a, cases[2].b); !strings.Contains(got, "its CPU") {
		t.Errorf("slots free: %q does not blame the generator", got)
	}
}

func TestBehindValidateNamesTheField(t *testing.T) {
	for _, b := range []Behind{{Share: 0, Window: time.Second}, {Share: 1, Window: time.Second}, {Share: 0.2, Window: time.Millisecond}} {
		err := Open{Schedule: Constant{Rate: 1}, Behind: &b}.Validate()
		if err == nil || !strings.Contains(err.Error(), "abort_when_behind.") {
			t.Errorf("%+v: %v", b, err)
		}
	}
	if err := (Open{Schedule: Constant{Rate: 1}, Behind: &Behind{Share: 0.2, Window: time.Second}}).Validate(); err != nil {
		t.Error(err)
	}
}

// A platform slower than the rate: one in-flight slot, 50 ms a request, 200
// requests a second offered. The open loop stops itself within about a
// window, far before its schedule's 20 s end, and says why.
func TestOpenStopsItselfWhenBehind(t *testing.T) {
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(50 * time.Millisecond)
		w.Write([]byte("ok"))
	})
	cl := NewClient(Options{})
	defer cl.Close()
	o := Open{Schedule: Limit{S: Constant{Rate: 200}, Duration: 20 * time.Second}, MaxInFlight: 1, Deadline: 20 * time.Second,
		Behind: &Behind{Share: 0.2, Window: 500 * time.Millisecond}}
	began := time.Now()
	res, err := o.Run(context.Background(), cl, Target{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	if res.Behind == "" || !res.Interrupted {
		t.Fatalf("behind %q, interrupted %v: the loop did not stop itself", res.Behind, res.Interrupted)
	}
	if !strings.Contains(res.Behind, "all 1 in-flight slots were taken") {
		t.Errorf("behind %q: the cause is the full in-flight bound", res.Behind)
	}
	if took > 5*time.Second {
		t.Errorf("stopped after %v, for a 500 ms window of a 20 s schedule", took)
	}
}

// On pace, the rule never fires and the load runs to its schedule's end.
func TestOpenOnPaceIsNotStopped(t *testing.T) {
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	cl := NewClient(Options{})
	defer cl.Close()
	o := Open{Schedule: Limit{S: Constant{Rate: 200}, Duration: time.Second}, MaxInFlight: 16,
		Behind: &Behind{Share: 0.5, Window: 300 * time.Millisecond}}
	res, err := o.Run(context.Background(), cl, Target{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if res.Behind != "" || res.Interrupted || res.Succeeded() != 200 {
		t.Fatalf("behind %q, interrupted %v, %d ok of 200", res.Behind, res.Interrupted, res.Succeeded())
	}
}

// A generator share that fell behind says which one in the merged result.
func TestMergeSaysWhichGeneratorFellBehind(t *testing.T) {
	a := &Result{Recorder: NewRecorder(0)}
	b := &Result{Recorder: NewRecorder(0), Behind: "behind: 3 of 100", Interrupted: true}
	m, err := MergeResults([]*Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if m.Behind != "generator 2 of 2: behind: 3 of 100" || !m.Interrupted {
		t.Fatalf("merged behind %q interrupted %v", m.Behind, m.Interrupted)
	}
	wr, err := b.ToWire()
	if err != nil {
		t.Fatal(err)
	}
	back, err := wr.FromWire()
	if err != nil {
		t.Fatal(err)
	}
	if back.Behind != b.Behind {
		t.Fatalf("over the wire: %q", back.Behind)
	}
}
