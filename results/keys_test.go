package results

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/stats"
)

func writeHlog(t *testing.T, dir, id string, ms float64, n int) {
	t.Helper()
	h := hist.New()
	for range n {
		h.Record(int64(ms * 1e6))
	}
	var buf bytes.Buffer
	if err := hist.WriteLog(&buf, 0, []hist.LogEntry{{Tag: "ok", Histogram: h, EndMs: 1000}}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "hlog"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hlog", HlogName(id)), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func keyCell(key string, rep int) Cell {
	return Cell{Cell: plan.Cell{ID: key + "/r=" + string(rune('0'+rep)), Key: key, Function: "f", Workload: "hello", Language: "go",
		Replicas: 1, Concurrency: 1, Repetition: rep, Kind: "sweep"}, Platform: "local", Model: "closed", Errors: map[string]int64{},
		LatencyByClassMs: map[string]stats.Percentiles{}, Warnings: []string{}, ColdKinds: map[string]int64{}, Instances: map[string]int64{},
		Windows: []Window{}}
}

// A key of three repetitions pools their histograms and has the bootstrap
// interval over them; a key run once says why it has none; a key whose
// logs are missing says so; and the summary with all of it is valid.
func TestPoolKeysGivesTheHeadlineIntervals(t *testing.T) {
	dir := t.TempDir()
	var cells []Cell
	for rep, ms := range []float64{10, 20, 30} {
		c := keyCell("f/c=1", rep+1)
		writeHlog(t, dir, c.ID, ms, 1000)
		cells = append(cells, c)
	}
	once := keyCell("f/c=8", 1)
	writeHlog(t, dir, once.ID, 5, 200)
	h := hist.New()
	for range 200 {
		h.Record(5e6)
	}
	once.SuccessLatencyMs = stats.Of(h)
	once.SuccessLatencyMs.Intervals = stats.WithinRun(h)
	cells = append(cells, once, keyCell("f/c=32", 1))
	keys := PoolKeys(dir, cells)
	if len(keys) != 3 || keys[0].Key != "f/c=1" || keys[0].Reps != 3 || keys[1].Reps != 1 {
		t.Fatalf("keys %+v", keys)
	}
	p := keys[0].SuccessLatencyMs
	if p.Count != 3000 || p.Intervals == nil || p.Intervals.P50 == nil || p.Intervals.P50.Method != stats.MethodBootstrapReps ||
		p.Intervals.P50.Lo > 10.01 || p.Intervals.P50.Hi < 29.99 {
		t.Errorf("pooled %+v, intervals %+v", p, p.Intervals)
	}
	if keys[1].SuccessLatencyMs.Intervals != nil || !strings.Contains(keys[1].Note, "one repetition") {
		t.Errorf("a key run once: %+v", keys[1])
	}
	if keys[2].SuccessLatencyMs.Count != 0 || !strings.Contains(keys[2].Note, "no readable histogram log") || strings.Contains(keys[2].Note, dir) {
		t.Errorf("a key without logs: %+v", keys[2])
	}
	s := Summary{SchemaVersion: SchemaVersion, RunID: "r", Name: "q", Platform: "local", Status: StatusComplete, Cells: cells, Keys: keys}
	doc, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateSummary(doc); err != nil {
		t.Fatalf("a summary with keys and intervals: %v", err)
	}
}

// Where every repetition kept its seconds' buckets, the headline interval
// is the two-level bootstrap; a key missing one repetition's file keeps the
// bootstrap over repetitions.
func TestPoolKeysUsesTheSecondsWhenKept(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "windows"), 0o755); err != nil {
		t.Fatal(err)
	}
	var cells []Cell
	for _, key := range []string{"f/c=1", "f/c=2"} {
		for rep, ms := range []float64{10, 11, 12} {
			c := keyCell(key, rep+1)
			writeHlog(t, dir, c.ID, ms, 1000)
			cells = append(cells, c)
			if key == "f/c=2" && rep == 2 {
				continue // no windows file for this repetition
			}
			// Ten seconds of 100 requests, in the bucket of ms milliseconds (1 µs · 2^(b/4)).
			b := int(4 * math.Log2(ms*1e3))
			sec := make([]uint32, b+1)
			sec[b] = 100
			w := stats.Buckets{LowestNs: 1000, PerOctave: 4}
			for range 10 {
				w.Seconds = append(w.Seconds, sec)
			}
			data, _ := json.Marshal(w)
			if err := os.WriteFile(filepath.Join(dir, "windows", WindowsName(c.ID)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	keys := PoolKeys(dir, cells)
	if m := keys[0].SuccessLatencyMs.Intervals.P50.Method; m != stats.MethodBootstrapRepsWindows {
		t.Errorf("every repetition with its seconds: %s", m)
	}
	if m := keys[1].SuccessLatencyMs.Intervals.P50.Method; m != stats.MethodBootstrapReps {
		t.Errorf("a repetition without its seconds: %s", m)
	}
	if iv := keys[0].SuccessLatencyMs.Intervals.P50; iv.Lo > 10.01 || iv.Hi < 11.99 {
		t.Errorf("two levels %+v: the repetitions' medians 10, 11, 12 ms are the spread", iv)
	}
	// Both methods are the schema's: a summary with these keys validates (the two-level method was
	// missing from it, and every run with repetitions and seconds said so in its report's P7 row).
	doc, err := json.Marshal(Summary{SchemaVersion: SchemaVersion, RunID: "r", Name: "q", Platform: "local", Status: StatusComplete, Cells: []Cell{}, Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateSummary(doc); err != nil {
		t.Errorf("a summary with pooled keys: %v", err)
	}
}

// Two repetitions are enough for an interval across them: no "one repetition" note.
func TestPoolKeyOfTwoRepetitions(t *testing.T) {
	dir := t.TempDir()
	var cells []Cell
	var hs []*hist.Histogram
	for rep, ms := range []float64{10, 12} {
		c := keyCell("f/c=1", rep+1)
		h := hist.New()
		for range 500 {
			h.Record(int64(ms * 1e6))
		}
		cells, hs = append(cells, c), append(hs, h)
	}
	k := PoolKey(dir, "f/c=1", cells, hs)
	if k.Reps != 2 || k.Note != "" || k.SuccessLatencyMs.Intervals == nil {
		t.Errorf("two repetitions: %+v", k)
	}
}
