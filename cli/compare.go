package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/report"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

func (a *app) compareCmd() *cobra.Command {
	var margin, alpha float64
	var failOn string
	cmd := &cobra.Command{
		Use:   "compare RUN_A RUN_B",
		Short: "Compare two runs cell by cell: better, worse, equivalent or inconclusive, with intervals (Holm-corrected)",
		Long: `Compare two run directories. Cells are paired by key (function and grid point, without the
repetition); the repetition is the unit: each figure (throughput, p50, p99, error rate; where the
runs have them, CPU- and GB-seconds and cost per million invocations, the platform's own CPU per
million, autoscale cells' under- and over-provisioning, kind capacity's validated capacity) is one
value per repetition. For each, B relative to A with a 95 % interval (Welch's t on the logarithms), a p-value
adjusted for the number of tests (Holm), and a verdict: equivalent (the interval lies inside
±margin), better or worse (a difference beyond chance), or inconclusive, with the repetitions per
run that would decide.

--fail-on makes it a CI gate: exit 4 when a watched metric (every one, or those after "worse:") of
some cell is worse in B beyond ±margin and by more than chance (the verdict worse: its interval
excludes no change), with a line per such cell; a difference within the margin, or one the
repetitions cannot tell from noise, passes (exit 0).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !(margin > 0 && margin < 1) {
				return usageErr("--margin %v: want a fraction in (0, 1), e.g. 0.05", margin)
			}
			if !(alpha > 0 && alpha < 0.5) {
				return usageErr("--alpha %v: want (0, 0.5)", alpha)
			}
			var gate *report.Gate
			if cmd.Flags().Changed("fail-on") {
				g, err := report.ParseFailOn(failOn)
				if err != nil {
					return usageErr("%v", err)
				}
				gate = &g
			}
			ra, err := report.Load(args[0])
			if err != nil {
				return usageErr("%s: %v", args[0], err)
			}
			rb, err := report.Load(args[1])
			if err != nil {
				return usageErr("%s: %v", args[1], err)
			}
			tests, onlyA, onlyB := report.Tests(ra, rb, report.Metrics)
			if len(tests) == 0 {
				return usageErr("the runs have no cell in common (A: %s; B: %s)", strings.Join(onlyA, ", "), strings.Join(onlyB, ", "))
			}
			cs := stats.Compare(tests, margin, alpha)
			var gr *report.GateResult
			if gate != nil {
				r := gate.Check(cs, margin)
				gr = &r
			}
			if a.json() {
				if err := json.NewEncoder(a.env.Stdout).Encode(map[string]any{"a": args[0], "b": args[1], "margin": margin, "alpha": alpha,
					"comparisons": cs, "only_a": onlyA, "only_b": onlyB, "gate": gr,
					"idle_footprint": map[string]any{"a": ra.Summary.IdleFootprint, "b": rb.Summary.IdleFootprint}}); err != nil {
					return err
				}
				return gateErr(gr)
			}
			w := a.env.Stdout
			fmt.Fprintf(w, "A = %s (%s)\nB = %s (%s)\nmargin ±%.0f%%, α = %.2f, %d tests (Holm-corrected)\n\n", ra.Summary.Name, args[0], rb.Summary.Name, args[1], 100*margin, alpha, len(cs))
			if fa, fb := ra.Summary.IdleFootprint, rb.Summary.IdleFootprint; fa != nil || fb != nil {
				fmt.Fprintf(w, "the platform's own components idle (one window per run, not tested): A %s; B %s\n\n", idleText(fa), idleText(fb))
			}
			fmt.Fprintf(w, "%-36s %-20s %6s %12s %12s %9s %21s  %s\n", "cell", "metric", "reps", "A median", "B median", "B/A-1", "95% interval", "verdict")
			counts := map[string]int{}
			for _, c := range cs {
				counts[c.Verdict]++
				rel, ci := "-", "-"
				if c.RelDiff != nil {
					rel = fmt.Sprintf("%+.1f%%", 100**c.RelDiff)
					ci = fmt.Sprintf("[%+.1f%%, %+.1f%%]", 100**c.Lo, 100**c.Hi)
				}
				fmt.Fprintf(w, "%-36s %-20s %3d/%-2d %12.4g %12.4g %9s %21s  %s\n", c.Key, c.Metric, c.A.N, c.B.N, c.A.Median, c.B.Median, rel, ci, c.Verdict)
				if c.Verdict == stats.Inconclusive {
					fmt.Fprintf(w, "%-36s   %s\n", "", c.Reason)
				}
				if r := c.Rank; r != nil {
					fmt.Fprintf(w, "%-36s   rank test: %s\n", "", rankLine(r))
				}
			}
			fmt.Fprintf(w, "\n%d better, %d worse, %d equivalent, %d inconclusive\n", counts[stats.Better], counts[stats.Worse], counts[stats.Equivalent], counts[stats.Inconclusive])
			if len(onlyA)+len(onlyB) > 0 {
				fmt.Fprintf(w, "only in A: %s\nonly in B: %s\n", strings.Join(onlyA, ", "), strings.Join(onlyB, ", "))
			}
			if gr != nil {
				fmt.Fprintf(w, "\n%s\n", strings.Join(gr.Lines(), "\n"))
			}
			return gateErr(gr)
		},
	}
	cmd.Flags().Float64Var(&margin, "margin", 0.05, "equivalence margin, a fraction: differences inside ±margin do not matter")
	cmd.Flags().Float64Var(&alpha, "alpha", 0.05, "significance level (after Holm's correction) and 1 − interval coverage")
	cmd.Flags().StringVar(&failOn, "fail-on", "", "a CI gate: worse or worse:METRIC[,METRIC...]: exit 4 when such a metric is worse beyond the margin and beyond chance")
	return cmd
}

// gateErr is the exit of a gate that failed (nil when it passed or there is none).
func gateErr(r *report.GateResult) error {
	if r == nil || r.Passed() {
		return nil
	}
	return withCode(ExitGate, fmt.Errorf("gate failed: %d cell metric(s) worse beyond ±%.0f%%", len(r.Failed), 100*r.Margin))
}

// rankLine says the Mann-Whitney test and the Hodges-Lehmann shift.
func rankLine(r *stats.RankTest) string {
	how := "exact"
	if !r.Exact {
		how = "normal approx."
	}
	out := fmt.Sprintf("Mann-Whitney p = %.3g (%s), Hodges-Lehmann shift %+.1f%%", r.P, how, 100*r.RelShift)
	if r.Lo != nil {
		out += fmt.Sprintf(" [%+.1f%%, %+.1f%%]", 100**r.Lo, 100**r.Hi)
	}
	if r.Note != "" {
		out += "; " + r.Note
	}
	return out
}

// idleText words a run's idle footprint.
func idleText(f *results.Footprint) string {
	if f == nil {
		return "not measured"
	}
	return fmt.Sprintf("%.3f cores, %.0f MiB", f.CPUCores, f.MemoryMiB)
}
