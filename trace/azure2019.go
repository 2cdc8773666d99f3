package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// The 2019 trace's columns (AzureFunctionsDataset2019.md).
var (
	invocationColumns = []string{"HashOwner", "HashApp", "HashFunction", "Trigger"}
	durationColumns   = []string{"HashOwner", "HashApp", "HashFunction", "Average", "Count", "Minimum", "Maximum",
		"percentile_Average_0", "percentile_Average_1", "percentile_Average_25", "percentile_Average_50",
		"percentile_Average_75", "percentile_Average_99", "percentile_Average_100"}
	memoryColumns = []string{"HashOwner", "HashApp", "SampleCount", "AverageAllocatedMb",
		"AverageAllocatedMb_pct1", "AverageAllocatedMb_pct5", "AverageAllocatedMb_pct25", "AverageAllocatedMb_pct50",
		"AverageAllocatedMb_pct75", "AverageAllocatedMb_pct95", "AverageAllocatedMb_pct99", "AverageAllocatedMb_pct100"}
	durationQuantiles = []float64{0, 1, 25, 50, 75, 99, 100}
	memoryQuantiles   = []float64{1, 5, 25, 50, 75, 95, 99, 100}
)

// Files2019 are the readers of one day of the 2019 trace, each with the name
// errors give it. Durations and Memory may be nil (a trace of counts only).
type Files2019 struct {
	Invocations, Durations, Memory             io.Reader
	InvocationsName, DurationsName, MemoryName string
}

// ReadOptions bound what a reader accepts.
type ReadOptions struct {
	// MaxDuration refuses a function whose average execution time is over
	// it (default one minute: a replay gives each invocation its function's
	// execution time within the minute it falls in).
	MaxDuration time.Duration
}

func (o ReadOptions) maxDurationMs() float64 {
	if o.MaxDuration <= 0 {
		return float64(time.Minute / time.Millisecond)
	}
	return float64(o.MaxDuration) / float64(time.Millisecond)
}

// ReadAzure2019 reads one day of the 2019 trace: every function of the
// invocations file, with its execution-time percentiles and its
// application's memory percentiles where those files have them. Bad input
// (a missing column, a count that is negative or not a number, a percentile
// out of order, a function longer than opts.MaxDuration) fails with the
// file, its line and the function.
func ReadAzure2019(f Files2019, opts ReadOptions) (*Trace, error) {
	t, index, err := readInvocations(f.Invocations, nameOr(f.InvocationsName, "invocations"))
	if err != nil {
		return nil, err
	}
	if f.Durations != nil {
		if err := readDurations(f.Durations, nameOr(f.DurationsName, "durations"), t, index, opts.maxDurationMs()); err != nil {
			return nil, err
		}
	}
	if f.Memory != nil {
		if err := readMemory(f.Memory, nameOr(f.MemoryName, "memory"), t); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func nameOr(name, def string) string {
	if name == "" {
		return def
	}
	return name
}

// table is a CSV file read row by row with its columns found by name.
type table struct {
	name string
	r    *csv.Reader
	col  map[string]int
	line int
}

func openTable(r io.Reader, name string, need []string) (*table, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", name, err)
	}
	t := &table{name: name, r: cr, col: map[string]int{}, line: 1}
	for i, h := range header {
		t.col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, c := range need {
		if _, ok := t.col[c]; !ok {
			return nil, fmt.Errorf("%s: no column %q in the header (want %s)", name, c, strings.Join(need, ","))
		}
	}
	return t, nil
}

// next reads a row; io.EOF at the end. t.line is the row's line in the
// file (blank lines skipped by the reader still count).
func (t *table) next() ([]string, error) {
	rec, err := t.r.Read()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", t.name, err) // csv.ParseError names the line
	}
	if err == nil {
		t.line, _ = t.r.FieldPos(0)
	}
	return rec, err
}

func (t *table) get(rec []string, c string) string {
	i := t.col[c]
	if i >= len(rec) {
		return ""
	}
	return strings.TrimSpace(rec[i])
}

func (t *table) float(rec []string, c string) (float64, error) {
	s := t.get(rec, c)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, rowError(t.name, t.line, "%s %q is not a number", c, s)
	}
	if v < 0 {
		return 0, rowError(t.name, t.line, "%s %v is negative", c, v)
	}
	return v, nil
}

func readInvocations(r io.Reader, name string) (*Trace, map[key]int, error) {
	tb, err := openTable(r, name, invocationColumns)
	if err != nil {
		return nil, nil, err
	}
	var minutes []int
	for m := 1; ; m++ {
		i, ok := tb.col[strconv.Itoa(m)]
		if !ok {
			break
		}
		minutes = append(minutes, i)
	}
	if len(minutes) == 0 {
		return nil, nil, fmt.Errorf("%s: no minute columns (1..%d) in the header", name, MinuteColumns)
	}
	t := &Trace{Minutes: len(minutes)}
	index := map[key]int{}
	var lines []int
	for {
		rec, err := tb.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		k := key{tb.get(rec, "HashOwner"), tb.get(rec, "HashApp"), tb.get(rec, "HashFunction")}
		if k.app == "" || k.name == "" {
			return nil, nil, rowError(name, tb.line, "no HashApp or HashFunction")
		}
		if prev, dup := index[k]; dup {
			return nil, nil, rowError(name, tb.line, "function %s is on line %d too", (&Function{App: k.app, Name: k.name}).ID(), lines[prev])
		}
		if len(t.Functions) >= MaxFunctions {
			return nil, nil, rowError(name, tb.line, "more than %d functions", MaxFunctions)
		}
		fn := Function{Owner: k.owner, App: k.app, Name: k.name, Trigger: tb.get(rec, "Trigger"), PerMinute: make([]int32, len(minutes))}
		for m, i := range minutes {
			if i >= len(rec) {
				return nil, nil, rowError(name, tb.line, "function %s has no minute %d", fn.ID(), m+1)
			}
			n, err := strconv.ParseInt(strings.TrimSpace(rec[i]), 10, 32)
			if err != nil {
				return nil, nil, rowError(name, tb.line, "function %s minute %d: %q is not a count", fn.ID(), m+1, rec[i])
			}
			if n < 0 {
				return nil, nil, rowError(name, tb.line, "function %s minute %d: %d invocations is negative", fn.ID(), m+1, n)
			}
			fn.PerMinute[m] = int32(n)
		}
		index[k] = len(t.Functions)
		lines = append(lines, tb.line)
		t.Functions = append(t.Functions, fn)
	}
	if len(t.Functions) == 0 {
		return nil, nil, fmt.Errorf("%s: no functions", name)
	}
	return t, index, nil
}

// readPercentiles reads a summary's points from columns cols at quantiles
// qs, which must not decrease.
func (t *table) readPercentiles(rec []string, avgCol, countCol string, cols []string, qs []float64) (*Percentiles, error) {
	p := &Percentiles{}
	var err error
	if p.Average, err = t.float(rec, avgCol); err != nil {
		return nil, err
	}
	c, err := t.float(rec, countCol)
	if err != nil {
		return nil, err
	}
	p.Count = int64(c)
	for i, col := range cols {
		v, err := t.float(rec, col)
		if err != nil {
			return nil, err
		}
		if n := len(p.Points); n > 0 && v < p.Points[n-1].V {
			return nil, rowError(t.name, t.line, "%s %v is below %s %v (percentiles must not decrease)", col, v, cols[i-1], p.Points[n-1].V)
		}
		p.Points = append(p.Points, Point{Q: qs[i], V: v})
	}
	return p, nil
}

func readDurations(r io.Reader, name string, t *Trace, index map[key]int, maxMs float64) error {
	tb, err := openTable(r, name, durationColumns)
	if err != nil {
		return err
	}
	for {
		rec, err := tb.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		k := key{tb.get(rec, "HashOwner"), tb.get(rec, "HashApp"), tb.get(rec, "HashFunction")}
		if k.app == "" || k.name == "" {
			// A short or blank-keyed row names no function: refused, not
			// taken for one that was not invoked.
			return rowError(name, tb.line, "no HashApp or HashFunction")
		}
		i, ok := index[k]
		if !ok {
			continue // a function with no invocations that day
		}
		p, err := tb.readPercentiles(rec, "Average", "Count", durationColumns[7:], durationQuantiles)
		if err != nil {
			return err
		}
		if p.Min, err = tb.float(rec, "Minimum"); err != nil {
			return err
		}
		if p.Max, err = tb.float(rec, "Maximum"); err != nil {
			return err
		}
		if p.Average > maxMs {
			return rowError(name, tb.line, "function %s runs %.0f ms on average, longer than %.0f ms (a replay gives each invocation its time within its minute)",
				t.Functions[i].ID(), p.Average, maxMs)
		}
		t.Functions[i].Duration = p
	}
}

func readMemory(r io.Reader, name string, t *Trace) error {
	tb, err := openTable(r, name, memoryColumns)
	if err != nil {
		return err
	}
	type appKey struct{ owner, app string }
	apps := map[appKey]*Percentiles{}
	for {
		rec, err := tb.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		p, err := tb.readPercentiles(rec, "AverageAllocatedMb", "SampleCount", memoryColumns[4:], memoryQuantiles)
		if err != nil {
			return err
		}
		p.Min, p.Max = p.Points[0].V, p.Points[len(p.Points)-1].V
		apps[appKey{tb.get(rec, "HashOwner"), tb.get(rec, "HashApp")}] = p
	}
	for i := range t.Functions {
		f := &t.Functions[i]
		f.MemoryMB = apps[appKey{f.Owner, f.App}]
	}
	return nil
}

// WriteAzure2019 writes t in the 2019 format: the invocations file, and the
// durations and memory files for the functions that have those summaries
// (memory once per application).
func WriteAzure2019(t *Trace, invocations, durations, memory io.Writer) error {
	w := csv.NewWriter(invocations)
	header := append([]string(nil), invocationColumns...)
	for m := 1; m <= t.Minutes; m++ {
		header = append(header, strconv.Itoa(m))
	}
	_ = w.Write(header)
	row := make([]string, 0, len(header))
	for i := range t.Functions {
		f := &t.Functions[i]
		row = append(row[:0], f.Owner, f.App, f.Name, f.Trigger)
		for _, n := range f.PerMinute {
			row = append(row, strconv.FormatInt(int64(n), 10))
		}
		_ = w.Write(row)
	}
	if w.Flush(); w.Error() != nil {
		return fmt.Errorf("write invocations: %w", w.Error())
	}
	if durations != nil {
		w := csv.NewWriter(durations)
		_ = w.Write(durationColumns)
		for i := range t.Functions {
			f := &t.Functions[i]
			if p := f.Duration; p != nil {
				_ = w.Write(append([]string{f.Owner, f.App, f.Name, num(p.Average), strconv.FormatInt(p.Count, 10), num(p.Min), num(p.Max)}, values(p, durationQuantiles)...))
			}
		}
		if w.Flush(); w.Error() != nil {
			return fmt.Errorf("write durations: %w", w.Error())
		}
	}
	if memory != nil {
		w := csv.NewWriter(memory)
		_ = w.Write(memoryColumns)
		seen := map[[2]string]bool{}
		for i := range t.Functions {
			f := &t.Functions[i]
			app := [2]string{f.Owner, f.App}
			if p := f.MemoryMB; p != nil && !seen[app] {
				seen[app] = true
				_ = w.Write(append([]string{f.Owner, f.App, strconv.FormatInt(p.Count, 10), num(p.Average)}, values(p, memoryQuantiles)...))
			}
		}
		if w.Flush(); w.Error() != nil {
			return fmt.Errorf("write memory: %w", w.Error())
		}
	}
	return nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// values are p's values at qs (its own points where they are at qs).
func values(p *Percentiles, qs []float64) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = num(p.At(q))
	}
	return out
}
