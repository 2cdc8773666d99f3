package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/faasbench/faasbench/report"
	"github.com/faasbench/faasbench/results"
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
	switch {
	case runErr == nil:
		m.Status = results.StatusComplete
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
	werr := errors.Join(r.dir.WriteJSON("summary.json", sum), r.dir.WriteJSON("manifest.json", m), writeReport(r.dir))
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
	_, _, err = report.WriteFigures(dir.File("figures"), []report.Run{run})
	return err
}
