package hist

import (
	"bytes"
	"strings"
	"testing"
)

func TestLogRoundTrip(t *testing.T) {
	all, ok := New(), New()
	for i := int64(1); i <= 1000; i++ {
		all.Record(i * 1000)
		if i%10 != 0 {
			ok.Record(i * 1000)
		}
	}
	var buf bytes.Buffer
	if err := WriteLog(&buf, 1_700_000_000_000, []LogEntry{{Tag: "all", EndMs: 3000, Histogram: all}, {Tag: "ok", EndMs: 3000, Histogram: ok}}); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{"#[Histogram log format version 1.3]", "Tag=all,", "Tag=ok,", "#[StartTime: 1700000000"} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}
	got, err := ReadLog(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if got["all"].Count() != 1000 || got["ok"].Count() != 900 {
		t.Fatalf("read back %d and %d values", got["all"].Count(), got["ok"].Count())
	}
	if a, b := got["all"].Quantile(0.99), all.Quantile(0.99); a != b {
		t.Errorf("p99 %d read back, %d written", a, b)
	}
	// Two entries with one tag (two repetitions) merge.
	var two bytes.Buffer
	_ = WriteLog(&two, 0, []LogEntry{{Tag: "ok", Histogram: ok}, {Tag: "ok", Histogram: ok}})
	m, err := ReadLog(&two)
	if err != nil || m["ok"].Count() != 1800 {
		t.Errorf("merged %v, %v", m["ok"].Count(), err)
	}
}

func TestEachCoversEveryValue(t *testing.T) {
	h := New()
	for _, v := range []int64{1000, 1000, 5_000_000, 7_000_000_000} {
		h.Record(v)
	}
	var n int64
	var sum float64
	h.Each(func(ns, c int64) { n += c; sum += float64(ns * c) })
	if n != 4 || sum/4 < 1.7e9 || sum/4 > 1.8e9 {
		t.Errorf("%d values, mean %v", n, sum/4)
	}
}

// Each entry's interval is written as the log format has it (its start from the log's base time, its length,
// in seconds), and entries of one tag merge however many come, with the tags after them still read.
func TestLogIntervalsAndMergesOfManyEntries(t *testing.T) {
	h := New()
	h.Record(2_000_000)
	var buf bytes.Buffer
	err := WriteLog(&buf, 1_700_000_000_000, []LogEntry{{Tag: "a", StartMs: 1000, EndMs: 3500, Histogram: h},
		{Tag: "a", StartMs: 3500, EndMs: 4000, Histogram: h}, {Tag: "a", StartMs: 4000, EndMs: 5000, Histogram: h}, {Tag: "b", Histogram: h}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "Tag=a,1.000000,2.500000,") || !strings.Contains(buf.String(), "Tag=a,3.500000,0.500000,") {
		t.Errorf("intervals [1, 3.5] s and [3.5, 4] s not written as start and length:\n%s", buf.String())
	}
	got, err := ReadLog(&buf)
	if err != nil || got["a"] == nil || got["b"] == nil || got["a"].Count() != 3 || got["b"].Count() != 1 {
		t.Fatalf("read back %v (%v): want a's three entries merged and b", got, err)
	}
}
