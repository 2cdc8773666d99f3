package trace

import (
	"math"
	"sort"
	"strings"
	"testing"
)

// A stratified sample of 100 functions of 4000 keeps the trace's
// distributions; the 100 busiest functions do not.
func TestSampleKeepsTheDistributions(t *testing.T) {
	tr, err := Synthesize(SynthOptions{Functions: 4000, Minutes: 60, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	s, d, err := Sample(tr, SampleOptions{N: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Functions) != 100 || s.Minutes != 60 {
		t.Fatalf("%d functions, %d minutes", len(s.Functions), s.Minutes)
	}
	t.Logf("100 of 4000: %+v decades", d)
	if d.Rate > 0.1 || d.Duration > 0.25 || d.Memory > 0.05 {
		t.Errorf("sample distances %+v", d)
	}
	if got := Distance(tr, s); got != d {
		t.Errorf("reported %+v, recomputed %+v", d, got)
	}
	busiest := &Trace{Minutes: tr.Minutes, Functions: append([]Function(nil), tr.Functions...)}
	sort.Slice(busiest.Functions, func(i, j int) bool {
		return busiest.Functions[i].Invocations() > busiest.Functions[j].Invocations()
	})
	busiest.Functions = busiest.Functions[:100]
	far := Distance(tr, busiest)
	t.Logf("the busiest 100: %+v", far)
	if far.Rate < 10*d.Rate || far.Rate < 1 {
		t.Errorf("the busiest 100 are %.2f decades off, the sample %.2f", far.Rate, d.Rate)
	}
	again, d2, _ := Sample(tr, SampleOptions{N: 100, Seed: 1})
	if d2 != d || again.Functions[0].Name != s.Functions[0].Name {
		t.Error("a seed does not decide the sample")
	}
	whole, dw, _ := Sample(tr, SampleOptions{N: 4000})
	if len(whole.Functions) != 4000 || dw.Sum() != 0 || math.IsNaN(dw.Rate) {
		t.Errorf("the whole trace as a sample: %+v", dw)
	}
}

func TestSampleRefusesMoreThanTheTrace(t *testing.T) {
	tr, _ := Synthesize(SynthOptions{Functions: 10, Minutes: 1})
	if _, _, err := Sample(tr, SampleOptions{N: 11}); err == nil || !strings.Contains(err.Error(), "11 functions asked, the trace has 10") {
		t.Errorf("oversized sample: %v", err)
	}
	if _, _, err := Sample(tr, SampleOptions{N: 0}); err == nil {
		t.Error("an empty sample was accepted")
	}
}

// Of its tries, Sample keeps the closest: with the same seed its first try
// is the one-try sample, so twenty tries are never farther.
func TestSampleKeepsTheClosestTry(t *testing.T) {
	tr, _ := Synthesize(SynthOptions{Functions: 2000, Minutes: 10, Seed: 5})
	_, one, _ := Sample(tr, SampleOptions{N: 20, Seed: 4, Tries: 1})
	_, twenty, _ := Sample(tr, SampleOptions{N: 20, Seed: 4, Tries: 20})
	if twenty.Sum() >= one.Sum() {
		t.Errorf("twenty tries %.3f, one %.3f", twenty.Sum(), one.Sum())
	}
}
