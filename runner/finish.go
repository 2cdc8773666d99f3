package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/faasbench/faasbench/report"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

// finish ends the run: the final manifest (status complete, partial or
// failed), summary and report, written whatever runErr says. It returns
// runErr joined with any error writing them.
func (r *Run) finish(runErr error) error {
	r.release() // the reserved space first: the final files need it
	r.release = func() {}
	end := time.Now().UTC()
	m, sum := r.m, r.sum
	m.End = &end
	if runErr == nil {
		runErr = verdict(sum.Cells)
	}
	switch {
	case runErr == nil:
		m.Status = results.StatusComplete
	case errors.Is(runErr, ErrNothingValid), errors.Is(runErr, ErrExpectation):
		// Run to its end, but what it measured is not what it was to measure.
		m.Status = results.StatusFailed
	case len(sum.Cells) > 0 || errors.Is(runErr, ErrInterrupted):
		m.Status = results.StatusPartial
	default:
		m.Status = results.StatusFailed
	}
	if runErr != nil {
		m.Error = runErr.Error()
	}
	sum.Status = m.Status
	for _, c := range sum.Cells {
		if !c.Valid {
			m.Warnings = append(m.Warnings, fmt.Sprintf("cell %s is not valid: %v", c.ID, c.Warnings))
		}
	}
	sum.Keys = results.PoolKeys(r.dir.Path, sum.Cells)
	printKeys(r.o.Log, sum.Keys)
	werr := errors.Join(r.dir.WriteJSON("summary.json", sum), r.dir.WriteJSON("manifest.json", m), writeReport(r.dir))
	for _, k := range results.ColdRateKnees(sum.Cells) {
		fmt.Fprintf(r.o.Messages, "\n%s r=%d: knee %v cold starts a second (%d steps)", k.Curve, k.Repetition, k.KneePerS, k.Steps)
		if k.Past != "" {
			fmt.Fprintf(r.o.Messages, "; past it, %s", k.Past)
		} else {
			fmt.Fprint(r.o.Messages, "; every step sustained: the knee may be higher")
		}
	}
	fmt.Fprintf(r.o.Messages, "\nrun %s: %s; %d cells measured\n  %s\n  %s\n", m.RunID, m.Status, len(sum.Cells),
		r.dir.File("summary.json"), r.dir.File("report.html"))
	return errors.Join(runErr, werr)
}

// writeReport renders report.html, summary.md and the figures of the run.
func writeReport(dir *results.Dir) error {
	run, err := report.Load(dir.Path)
	if err != nil {
		return err
	}
	for _, out := range []struct {
		name   string
		render func(w io.Writer) error
	}{
		{"report.html", func(w io.Writer) error { return report.HTML(w, []report.Run{run}) }},
		{"summary.md", func(w io.Writer) error { return report.Markdown(w, []report.Run{run}) }},
	} {
		// Rendered whole, then written atomically (and redacted): a full disk
		// leaves the previous file, never a truncated one.
		var buf bytes.Buffer
		if err := out.render(&buf); err != nil {
			return fmt.Errorf("report: %s: %w", out.name, err)
		}
		if err := dir.WriteFile(out.name, buf.Bytes()); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	figs, err := dir.Subdir("figures") // never a link out of the run
	if err != nil {
		return err
	}
	_, _, err = report.WriteFigures(figs, []report.Run{run})
	return err
}

// printKeys adds the keys measured more than once to the text table: the
// pooled p50 and p99 with their intervals over repetitions (nothing when
// every key ran once: the cell rows say it all).
func printKeys(w io.Writer, keys []results.Key) {
	var many []results.Key
	for _, k := range keys {
		if k.Reps > 1 {
			many = append(many, k)
		}
	}
	if len(many) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%-32s %4s  %-26s  %-26s  %s\n", "pooled over repetitions", "reps", "p50 ms [95% interval]", "p99 ms [95% interval]", "p99 between reps")
	for _, k := range many {
		p := k.SuccessLatencyMs
		var p50, p99 *stats.Interval
		if p.Intervals != nil {
			p50, p99 = p.Intervals.P50, p.Intervals.P99
		}
		fmt.Fprintf(w, "%-32s %4d  %-26s  %-26s  %s\n", k.Key, k.Reps, withInterval(p.P50, p50), withInterval(p.P99, p99), k.SpreadText("p99"))
	}
	how := stats.MethodBootstrapReps
	if iv := many[0].SuccessLatencyMs.Intervals; iv != nil && iv.P50 != nil {
		how = iv.P50.Method
	}
	fmt.Fprintf(w, "intervals: %s (each cell's within-run order-statistic interval is in summary.json);\n", how)
	fmt.Fprintln(w, "between reps: the repetitions' CV, and how many times the within-run standard error it is (about 1: they differ by sampling noise only)")
}

func withInterval(v *float64, iv *stats.Interval) string {
	switch {
	case v == nil:
		return "n<min"
	case iv == nil:
		return fmt.Sprintf("%.3f [none]", *v)
	}
	return fmt.Sprintf("%.3f [%.3f–%.3f]", *v, iv.Lo, iv.Hi)
}
