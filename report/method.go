package report

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/faasbench/faasbench/results"
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
	met, why := probabilistic(r)
	add("P5 probabilistic result description", met, "%s", why)
	met, why = statistical(r)
	add("P6 statistical evaluation", met, "%s", why)
	met, why = units(r)
	add("P7 measurement units", met, "%s", why)
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

// probabilistic judges P5 from the cells: distributions (percentiles with
// the samples they need, the histograms behind them) rather than means,
// and failed requests kept in their own histograms.
func probabilistic(r Run) (string, string) {
	cells := r.Summary.Cells
	if len(cells) == 0 {
		return "no", "no cell was measured"
	}
	var median, tail, failing, failKept int
	for _, c := range cells {
		if c.SuccessLatencyMs.P50 != nil {
			median++
		}
		if c.SuccessLatencyMs.P99 != nil {
			tail++
		}
		if c.Requests.Failed > 0 {
			failing++
			if len(c.LatencyByClassMs) > 1 || c.Batch != nil || c.Cold != nil {
				failKept++
			}
		}
	}
	hlog := exists(r.Dir, "hlog")
	why := fmt.Sprintf("%d of %d cells have a median and %d a p99 with the samples it needs (p99: 1000)", median, len(cells), tail)
	if failing > 0 {
		why += fmt.Sprintf("; %d of the %d cells with failures keep them in histograms of their own", failKept, failing)
	}
	if hlog {
		why += "; every histogram in hlog/"
	} else {
		why += "; no histograms in the run directory (hlog/)"
	}
	switch {
	case median == 0:
		return "no", why
	case hlog && tail*2 >= len(cells) && failKept == failing:
		return "yes", why
	}
	return "partly", why + " (longer cells give every cell its tail)"
}

// statistical judges P6 from the summary's keys: intervals across
// repetitions on every key run more than once, within-run ones otherwise.
func statistical(r Run) (string, string) {
	var many, across, within int
	for _, k := range r.Summary.Keys {
		if k.Reps > 1 {
			many++
			if iv := k.SuccessLatencyMs.Intervals; iv != nil && iv.P50 != nil {
				across++
			}
		}
	}
	for _, c := range r.Summary.Cells {
		if iv := c.SuccessLatencyMs.Intervals; iv != nil && iv.P50 != nil {
			within++
		}
	}
	switch {
	case many > 0 && across == many:
		return "yes", fmt.Sprintf("%d of %d keys run more than once have 95 %% intervals across repetitions (summary.json keys[]), %d cells within-run ones; faasbench compare tests runs (Welch with Holm, Mann-Whitney)", across, len(r.Summary.Keys), within)
	case across > 0 || within > 0:
		return "partly", fmt.Sprintf("intervals across repetitions on %d of %d keys, within-run ones (which assume independent requests) on %d of %d cells (repetitions: 3 gives every key one across repetitions)",
			across, len(r.Summary.Keys), within, len(r.Summary.Cells))
	}
	return "no", "no percentile of the run has an interval"
}

// units judges P7 from the files: the summary validates against its
// schema, whose every figure names its unit (_ms, _rps, _s, _bytes), and
// latency is timed from the intended send.
func units(r Run) (string, string) {
	if r.Dir == "" {
		return "partly", "the run was not read from a directory: its summary was not checked against the schema"
	}
	b, err := results.ReadRunFile(r.Dir, "summary.json")
	if err != nil {
		return "no", "no summary.json to check: " + err.Error()
	}
	if err := results.ValidateSummary(b); err != nil {
		return "no", "summary.json does not follow its schema (units in field names): " + err.Error()
	}
	open := 0
	for _, c := range r.Summary.Cells {
		if c.Model == "open" || c.Model == "trace" {
			open++
		}
	}
	why := "summary.json follows its schema, whose figures carry their unit in their name (_ms, _rps, _s, _bytes)"
	if open > 0 {
		why += fmt.Sprintf("; %d open-loop cells time latency from the intended send, the uncorrected time beside it", open)
	}
	return "yes", why
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
