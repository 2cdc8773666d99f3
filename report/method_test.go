package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

func TestMethodologyJudgesWhatTheRunRecorded(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "hlog"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := fullRun(t, dir)
	run.Manifest.Spec.Repetitions, run.Manifest.Spec.Order, run.Manifest.Spec.Seed = 3, "shuffled", 7
	run.Manifest.Fingerprint.Kernel, run.Manifest.Fingerprint.Cores = "6.1", 2
	met := map[string]string{}
	for _, p := range Methodology(run) {
		met[p.Name[:2]] = p.Met
	}
	want := map[string]string{"P1": "yes", "P2": "yes", "P3": "yes", "P4": "yes", "P5": "yes", "P6": "yes", "P7": "yes", "P8": "no"}
	for k, v := range want {
		if met[k] != v {
			t.Errorf("%s: %q, want %q (all: %v)", k, met[k], v, met)
		}
	}
	// One repetition, no histograms, no fingerprint: what is missing is said.
	bare := testRun()
	bare.Manifest.Spec.Repetitions = 1
	for _, p := range Methodology(bare) {
		switch p.Name[:2] {
		case "P1":
			if p.Met != "no" || !strings.Contains(p.Why, "repetitions: 3") {
				t.Errorf("P1 of one repetition: %+v", p)
			}
		case "P3", "P8":
			if p.Met != "no" {
				t.Errorf("%s: %+v", p.Name, p)
			}
		case "P4", "P5", "P7":
			if p.Met != "partly" {
				t.Errorf("%s: %+v", p.Name, p)
			}
		case "P6":
			if p.Met != "no" {
				t.Errorf("%s: %+v", p.Name, p)
			}
		}
	}
	var md, html bytes.Buffer
	if err := Markdown(&md, []Run{run}); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&html, []Run{run}); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{md.String(), html.String()} {
		if !strings.Contains(out, "P6 statistical evaluation") || !strings.Contains(out, "seeded random order (seed 7)") {
			t.Errorf("the methodology is not shown:\n%.400s", out)
		}
	}
}

// fullRun is testRun with what P5-P7 look for: every cell's tail, the
// failures' own histograms, intervals within and across repetitions, and a
// summary.json in dir that follows its schema.
func fullRun(t *testing.T, dir string) Run {
	t.Helper()
	run := testRun()
	run.Dir = dir
	iv := &stats.Intervals{P50: &stats.Interval{Lo: 0.9, Hi: 1.1, Method: stats.MethodOrderStatistic}}
	across := &stats.Intervals{P50: &stats.Interval{Lo: 0.9, Hi: 1.1, Method: stats.MethodBootstrapReps}}
	for i := range run.Summary.Cells {
		c := &run.Summary.Cells[i]
		c.Platform, c.Workload, c.Language, c.Model = "local", "hello", "go", "closed"
		c.Windows, c.ColdKinds, c.Instances, c.Warnings = []results.Window{}, map[string]int64{}, map[string]int64{}, []string{}
		c.SuccessLatencyMs.P99, c.SuccessLatencyMs.Intervals = f(5), iv
		c.LatencyByClassMs = map[string]stats.Percentiles{"ok": c.SuccessLatencyMs, "http-503": {Count: 1}}
	}
	run.Summary.Keys = []results.Key{{Key: "hello-go/c=1", Reps: 2, SuccessLatencyMs: stats.Percentiles{Intervals: across}}, {Key: "hello-go/c=8", Reps: 1}}
	writeSummary(t, dir, run.Summary)
	return run
}

func writeSummary(t *testing.T, dir string, s results.Summary) {
	t.Helper()
	s.SchemaVersion, s.RunID = results.SchemaVersion, "q-1"
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Each of P5-P7 is judged from the data: take away what it reads and it
// says so.
func TestMethodologyP5ToP7ReadTheData(t *testing.T) {
	judge := func(run Run, name string) Principle {
		for _, p := range Methodology(run) {
			if strings.HasPrefix(p.Name, name) {
				return p
			}
		}
		t.Fatalf("no %s", name)
		return Principle{}
	}
	mk := func() Run {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "hlog"), 0o755); err != nil {
			t.Fatal(err)
		}
		return fullRun(t, dir)
	}
	for _, p := range []string{"P5", "P6", "P7"} {
		if got := judge(mk(), p); got.Met != "yes" {
			t.Errorf("%s of a full run: %+v", p, got)
		}
	}
	// P5: no tails; failures without their own histograms; no histograms at all.
	run := mk()
	for i := range run.Summary.Cells {
		run.Summary.Cells[i].SuccessLatencyMs.P99 = nil
	}
	if p := judge(run, "P5"); p.Met != "partly" || !strings.Contains(p.Why, "0 a p99") {
		t.Errorf("P5 without tails: %+v", p)
	}
	run = mk()
	run.Summary.Cells[0].LatencyByClassMs = nil
	if p := judge(run, "P5"); p.Met != "partly" || !strings.Contains(p.Why, "3 of the 4 cells with failures") {
		t.Errorf("P5 with failures not kept apart: %+v", p)
	}
	run = mk()
	os.RemoveAll(filepath.Join(run.Dir, "hlog"))
	if p := judge(run, "P5"); p.Met != "partly" {
		t.Errorf("P5 without hlog/: %+v", p)
	}
	for i := range run.Summary.Cells {
		run.Summary.Cells[i].SuccessLatencyMs.P50 = nil
	}
	if p := judge(run, "P5"); p.Met != "no" {
		t.Errorf("P5 without a median: %+v", p)
	}
	// P6: a key run twice without an interval across repetitions; nothing at all.
	run = mk()
	run.Summary.Keys[0].SuccessLatencyMs.Intervals = nil
	if p := judge(run, "P6"); p.Met != "partly" {
		t.Errorf("P6 without the interval across repetitions: %+v", p)
	}
	for i := range run.Summary.Cells {
		run.Summary.Cells[i].SuccessLatencyMs.Intervals = nil
	}
	if p := judge(run, "P6"); p.Met != "no" {
		t.Errorf("P6 without any interval: %+v", p)
	}
	// P7: a summary.json that breaks its schema (a figure without its unit).
	run = mk()
	b, _ := os.ReadFile(filepath.Join(run.Dir, "summary.json"))
	b = bytes.Replace(b, []byte(`"throughput_rps"`), []byte(`"throughput"`), 1)
	if err := os.WriteFile(filepath.Join(run.Dir, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if p := judge(run, "P7"); p.Met != "no" || !strings.Contains(p.Why, "schema") {
		t.Errorf("P7 of a summary without units: %+v", p)
	}
}
