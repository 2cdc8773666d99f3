package trace

import (
	"bytes"
	"testing"
)

// Reading a day of the 2019 trace: 2,000 functions × 1,440 minutes with
// their durations and memory (the published day has about 46,000: scale
// the time and memory by 23). go test -run '^$' -bench . -benchmem ./trace/
func BenchmarkReadAzure2019Day(b *testing.B) {
	tr, err := Synthesize(SynthOptions{Functions: 2000, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	var inv, dur, mem bytes.Buffer
	if err := WriteAzure2019(tr, &inv, &dur, &mem); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(inv.Len() + dur.Len() + mem.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ReadAzure2019(Files2019{Invocations: bytes.NewReader(inv.Bytes()), Durations: bytes.NewReader(dur.Bytes()),
			Memory: bytes.NewReader(mem.Bytes())}, ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// A replay's schedule: 500 functions sampled from 5,000, an hour, Poisson
// within each minute; the figure per arrival is ns/op over arrivals.
func BenchmarkSchedulePoissonHour(b *testing.B) {
	tr, _ := Synthesize(SynthOptions{Functions: 5000, Minutes: 60, Seed: 1})
	s, _, err := Sample(tr, SampleOptions{N: 500, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var n int
	for i := 0; i < b.N; i++ {
		r, err := Schedule(s, ArrivalOptions{Process: Poisson, Seed: uint64(i)})
		if err != nil {
			b.Fatal(err)
		}
		n = len(r.Arrivals)
	}
	b.ReportMetric(float64(n), "arrivals/op")
}

// Sampling 100 of 5,000 functions with 20 tries.
func BenchmarkSample(b *testing.B) {
	tr, _ := Synthesize(SynthOptions{Functions: 5000, Minutes: 60, Seed: 1})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := Sample(tr, SampleOptions{N: 100, Seed: uint64(i)}); err != nil {
			b.Fatal(err)
		}
	}
}
