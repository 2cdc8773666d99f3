package report

import (
	"strings"
	"testing"

	"github.com/faasbench/faasbench/stats"
)

func TestParseFailOn(t *testing.T) {
	g, err := ParseFailOn("worse")
	if err != nil || len(g.Metrics) != 0 {
		t.Fatalf("worse: %+v %v", g, err)
	}
	g, err = ParseFailOn("worse:p99, throughput,p99")
	if err != nil || strings.Join(g.Metrics, ",") != "p99,throughput" {
		t.Fatalf("worse:p99,throughput: %+v %v", g, err)
	}
	for in, want := range map[string]string{
		"better":         `--fail-on "better": want worse or worse:METRIC`,
		"worse:p98":      `--fail-on "worse:p98": no metric "p98" (metrics: throughput, p50, p99, error_rate,`,
		"worse:":         `no metric ""`,
		"":               "want worse",
		"worse:p99,,p50": `no metric ""`,
	} {
		if _, err := ParseFailOn(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// Only a watched metric that is worse beyond chance and beyond the margin
// fails the gate: worse within the margin, inconclusive, better or
// unwatched do not.
func TestGateFailsOnlyOnWorseBeyondTheMargin(t *testing.T) {
	a := []float64{1000, 1010, 990, 1005, 995, 1002}
	scaled := func(f float64) []float64 {
		out := make([]float64, len(a))
		for i, v := range a {
			out[i] = v * f
		}
		return out
	}
	tests := []stats.Test{
		{Key: "slow/c=1", Metric: "p99", A: a, B: scaled(1.30)},                                      // worse by 30 %
		{Key: "slightly/c=1", Metric: "p99", A: a, B: []float64{1040, 1060, 1025, 1055, 1045, 1050}}, // +4.5 % [+3.2 %, +5.9 %]: beyond chance, within the margin
		{Key: "faster/c=1", Metric: "throughput", HigherIsBetter: true, A: a, B: scaled(1.3)},        // better
		{Key: "noisy/c=1", Metric: "p50", A: a, B: []float64{700, 1500, 1100}},                       // inconclusive
		{Key: "fewer/c=1", Metric: "throughput", HigherIsBetter: true, A: a, B: scaled(0.7)},         // worse by 30 %
	}
	cs := stats.Compare(tests, 0.05, 0.05)
	if cs[1].Verdict != stats.Worse || cs[3].Verdict != stats.Inconclusive {
		t.Fatalf("the test's premise: verdicts %s %s", cs[1].Verdict, cs[3].Verdict)
	}
	r := Gate{}.Check(cs, 0.05)
	if r.Passed() || len(r.Failed) != 2 || r.Failed[0].Key != "fewer/c=1" && r.Failed[0].Key != "slow/c=1" || len(r.WithinMargin) != 1 || r.WithinMargin[0].Key != "slightly/c=1" {
		t.Fatalf("every metric: failed %+v within %+v", r.Failed, r.WithinMargin)
	}
	lines := strings.Join(r.Lines(), "\n")
	if !strings.Contains(lines, "gate: FAILED: slow/c=1 p99 worse by +30.0% [") || !strings.Contains(lines, "beyond ±5%") ||
		!strings.Contains(lines, "gate: 1 worse within ±5% (not failing it)") {
		t.Errorf("lines:\n%s", lines)
	}
	r = Gate{Metrics: []string{"p50", "error_rate"}}.Check(cs, 0.05)
	if !r.Passed() || !strings.Contains(strings.Join(r.Lines(), "\n"), "gate: passed: no cell's p50, error_rate is worse beyond ±5%") {
		t.Errorf("p50 and error_rate only: %+v %v", r, r.Lines())
	}
	// A wider margin takes the 30 % in.
	if r := (Gate{}).Check(stats.Compare(tests, 0.5, 0.05), 0.5); !r.Passed() {
		t.Errorf("margin 50 %%: failed %+v", r.Failed)
	}
}
