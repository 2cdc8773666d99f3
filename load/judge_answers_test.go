package load

import (
	"strings"
	"testing"
	"time"
)

// Known answers for Judge's open-loop checks (issue 61's sweep found them unpinned): the share sent of
// the schedule (rate × span) and its words, each limit itself allowed, and no judgement without a rate.
func TestJudgeSentShareAndLagAtTheirLimits(t *testing.T) {
	open := func(sent int64, lag time.Duration) *Result {
		r := &Result{Recorder: NewRecorder(0), OfferedRate: 100, ScheduleSpan: 2 * time.Second}
		r.Counts[ClassOK] = sent
		r.LagHist().Record(int64(lag))
		return r
	}
	th := Thresholds{MinSentShare: 0.5, MaxLagP99: time.Hour, MaxSteal: 1, Saturated: 1}
	// 200 scheduled (100/s for 2 s): 100 sent is exactly half, allowed; 99 is not.
	if v := Judge(open(100, time.Millisecond), nil, 1, th); !v.Valid {
		t.Errorf("100 of 200 sent at a 50 %% floor: %+v, want valid", v)
	}
	v := Judge(open(99, time.Millisecond), nil, 1, th)
	want := "the generator sent 99 of 200 scheduled requests (49.50%, threshold 50.0%)"
	if v.Valid || len(v.Reasons) != 1 || v.Reasons[0] != want {
		t.Errorf("99 of 200 sent: %+v, want invalid: %q", v, want)
	}
	// The lag limit is the p99 itself: at it, valid; a nanosecond under it, invalid.
	r := open(200, 20*time.Millisecond)
	p99 := time.Duration(r.LagHist().Quantile(0.99))
	th.MaxLagP99 = p99
	if v := Judge(r, nil, 1, th); !v.Valid {
		t.Errorf("lag p99 %s at its limit: %+v, want valid", p99, v)
	}
	th.MaxLagP99 = p99 - 1
	if v := Judge(r, nil, 1, th); v.Valid || !strings.HasPrefix(v.Reasons[0], lagReason) {
		t.Errorf("lag p99 %s over a limit of %s: %+v, want invalid for the lag", p99, th.MaxLagP99, v)
	}
	// No offered rate (a load without a schedule): neither the share nor the lag is judged.
	r.OfferedRate = 0
	if v := Judge(r, nil, 1, th); !v.Valid {
		t.Errorf("no offered rate: %+v, want valid", v)
	}
}

// The hypervisor's steal and the generator's own CPU: each limit itself allowed, the second and the share
// in the words, no saturation judged without a CPU budget.
func TestJudgeStealAndSaturationAtTheirLimits(t *testing.T) {
	res := &Result{Recorder: NewRecorder(0)}
	res.Closed = true
	th := DefaultThresholds // steal 5 %, saturated 95 %
	if v := Judge(res, []GeneratorWindow{{Second: 3, Steal: 0.05, CPU: 1.9}}, 2, th); !v.Valid || v.Stolen || len(v.Warnings) != 0 {
		t.Errorf("steal and CPU at their limits: %+v, want valid without a warning", v)
	}
	v := Judge(res, []GeneratorWindow{{Second: 2, Steal: 0.01}, {Second: 3, Steal: 0.06, CPU: 1.95}}, 2, th)
	if v.Valid || !v.Stolen || len(v.Reasons) != 1 || v.Reasons[0] != "second 3: the hypervisor stole 6.0% of CPU time (threshold 5.0%)" {
		t.Errorf("6 %% stolen in second 3: %+v", v)
	}
	if len(v.Warnings) != 1 || !strings.HasPrefix(v.Warnings[0], "second 3: the generator used 98% of its 2 CPU(s)") {
		t.Errorf("1.95 of 2 cores: warnings %q", v.Warnings)
	}
	if v := Judge(res, []GeneratorWindow{{Second: 1, CPU: 7}}, 0, th); len(v.Warnings) != 0 {
		t.Errorf("no CPU budget: warnings %q", v.Warnings)
	}
}
