package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMethodologyJudgesWhatTheRunRecorded(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "hlog"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := testRun()
	run.Dir = dir
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
		case "P4", "P6":
			if p.Met != "partly" {
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
