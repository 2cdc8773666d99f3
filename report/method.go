package report

import (
	"fmt"
	"os"
	"path/filepath"
)

// Principle is one of the eight methodological principles of Papadopoulos
// et al. (IEEE TSE 2019, "Methodological Principles for Reproducible
// Performance Evaluation in Cloud Computing"), judged on what a run
// recorded: met, partly or not met, and why.
type Principle struct {
	Name string
	Met  string // yes, partly, no
	Why  string
}

// Methodology judges r against the eight principles, from its manifest,
// summary and files alone (what a reviewer of the run directory sees).
func Methodology(r Run) []Principle {
	sp := r.Manifest.Spec
	reps := sp.Repetitions
	keys := map[string]int{}
	for _, c := range r.Summary.Cells {
		keys[c.Key]++
	}
	var ps []Principle
	add := func(name, met, why string, args ...any) {
		ps = append(ps, Principle{Name: name, Met: met, Why: fmt.Sprintf(why, args...)})
	}
	switch order := sp.Order; {
	case reps >= 3 && order == "shuffled":
		add("P1 repeated experiments", "yes", "%d repetitions, cells in a seeded random order (seed %d)", reps, sp.Seed)
	case reps >= 3:
		add("P1 repeated experiments", "yes", "%d repetitions, interleaved (every cell of repetition 1, then of 2, …): drifts spread over all cells; order: shuffled randomises it", reps)
	case reps == 2:
		add("P1 repeated experiments", "partly", "2 repetitions: a spread, but no interval worth the name (3 or more: repetitions: 3)")
	default:
		add("P1 repeated experiments", "no", "one repetition: no run-to-run spread, no interval across repetitions (repetitions: 3)")
	}
	add("P2 workload and configuration coverage", coverage(len(keys)), "%d grid points over %d function(s); the plan and every parameter are in manifest.json", len(keys), len(sp.Functions))
	fp := r.Manifest.Fingerprint
	if fp.Kernel != "" && fp.Cores > 0 {
		add("P3 experimental setup description", "yes", "machine, kernel, CPU, memory, runtimes, the CPU split and the platform's own description are recorded (manifest.json)")
	} else {
		add("P3 experimental setup description", "no", "the manifest has no environment fingerprint")
	}
	artifacts := []string{"manifest.json (spec and plan)", "summary.json"}
	if exists(r.Dir, "hlog") {
		artifacts = append(artifacts, "hlog/ (every histogram)")
	}
	if exists(r.Dir, "records") {
		artifacts = append(artifacts, "records/ (every request)")
	}
	met := "partly"
	if len(artifacts) > 2 {
		met = "yes"
	}
	add("P4 open access artifact", met, "the run directory holds %s; rerun with faasbench run and the spec in the manifest", join(artifacts))
	add("P5 probabilistic result description", "yes", "percentiles p50-p99.9 per outcome, full histograms, per-second windows and CDFs; failed requests kept in their own histograms")
	switch {
	case reps >= 2:
		add("P6 statistical evaluation", "yes", "95 %% intervals on every percentile (bootstrap over repetitions; the within-run one labelled), on throughput; faasbench compare tests runs (Welch with Holm, Mann-Whitney)")
	default:
		add("P6 statistical evaluation", "partly", "within-run intervals only (they assume independent requests); with repetitions the headline interval is across them")
	}
	add("P7 measurement units", "yes", "units in every field name (_ms, _rps, _s, _bytes); times from the intended send")
	costed, sampled := false, false
	for _, c := range r.Summary.Cells {
		if e := c.Efficiency; e != nil && e.Samples > 0 {
			sampled = true
			costed = costed || e.Cost != nil
		}
	}
	own := ""
	if f := r.Summary.IdleFootprint; f != nil {
		own = fmt.Sprintf("; the platform's own components idle: %s cores, %s MiB (under load: each row)", fmtNum(f.CPUCores), fmtNum(f.MemoryMiB))
	}
	switch {
	case costed:
		add("P8 cost", "yes", "CPU- and GB-seconds per million successful invocations, used and allocated, priced with the spec's cost model%s", own)
	case sampled:
		add("P8 cost", "partly", "CPU- and GB-seconds per million successful invocations; no price model (cost: {vcpu_hour, gb_hour, per_million_requests})%s", own)
	default:
		add("P8 cost", "no", "no resource samples over the cells: the platform reports none, or the cells are shorter than the 1 s sampling")
	}
	return ps
}

func coverage(keys int) string {
	if keys >= 3 {
		return "yes"
	}
	return "partly"
}

func exists(dir, name string) bool {
	if dir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

func join(parts []string) string {
	out := ""
	for i, p := range parts {
		switch {
		case i == 0:
		case i == len(parts)-1:
			out += " and "
		default:
			out += ", "
		}
		out += p
	}
	return out
}
