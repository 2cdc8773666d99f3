package hist

import "testing"

// BenchmarkRecord is one value into a histogram, values spread over
// 1 µs .. 100 ms (the per-request cost, paid three or four times a request).
func BenchmarkRecord(b *testing.B) {
	h := New()
	b.ReportAllocs()
	for i := range b.N {
		h.Record(int64(1000 + (i*7919)%100_000_000))
	}
	if h.Count() != int64(b.N) {
		b.Fatalf("count %d, want %d", h.Count(), b.N)
	}
}

// BenchmarkMerge is one worker's histogram merged into the run's: the cost
// paid per worker at the end of a run, never while it runs.
func BenchmarkMerge(b *testing.B) {
	src := New()
	for i := range 100_000 {
		src.Record(int64(1000 + (i*7919)%100_000_000))
	}
	dst := New()
	b.ReportAllocs()
	for range b.N {
		if err := dst.Merge(src); err != nil {
			b.Fatal(err)
		}
	}
	if dst.Count() != int64(b.N)*src.Count() {
		b.Fatalf("merged %d, want %d", dst.Count(), int64(b.N)*src.Count())
	}
}

// BenchmarkNew reports what one histogram costs (B/op with -benchmem): a
// worker keeps three (latency, uncorrected latency, lag), so docs/MEMORY
// figures of ~0.5 MiB a worker come from here.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = New()
	}
}
