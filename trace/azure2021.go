package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"time"
)

// invocation2021Columns are the 2021 trace's (AzureFunctionsInvocationTrace2021.md).
var invocation2021Columns = []string{"app", "func", "end_timestamp", "duration"}

// MaxInvocations bounds a 2021 file (the published trace has about two million).
const MaxInvocations = 20_000_000

// ReadAzure2021 reads the 2021 trace: one row per invocation with its end
// time and its duration in seconds. Each invocation starts at end −
// duration; the offsets count from the trace's start (0, or the earliest
// start when one is before it). Per-minute counts and the execution-time
// summary are computed from the rows. Bad input fails with the file's line:
// a missing column, a value that is not a number, a negative duration, a
// function whose average execution time is over opts.MaxDuration.
func ReadAzure2021(r io.Reader, name string, opts ReadOptions) (*Trace, error) {
	name = nameOr(name, "invocations")
	tb, err := openTable(r, name, invocation2021Columns)
	if err != nil {
		return nil, err
	}
	index := map[[2]string]int{}
	var fns []*Function
	var firstLine []int
	var rows int
	origin := 0.0
	starts := [][]float64{}
	durs := [][]float64{}
	for {
		rec, err := tb.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if rows++; rows > MaxInvocations {
			return nil, rowError(name, tb.line, "more than %d invocations", MaxInvocations)
		}
		k := [2]string{tb.get(rec, "app"), tb.get(rec, "func")}
		if k[0] == "" || k[1] == "" {
			return nil, rowError(name, tb.line, "no app or func")
		}
		end, err := tb.signed(rec, "end_timestamp")
		if err != nil {
			return nil, err
		}
		d, err := tb.float(rec, "duration")
		if err != nil {
			return nil, err
		}
		i, ok := index[k]
		if !ok {
			if len(fns) >= MaxFunctions {
				return nil, rowError(name, tb.line, "more than %d functions", MaxFunctions)
			}
			i = len(fns)
			index[k] = i
			fns = append(fns, &Function{App: k[0], Name: k[1]})
			firstLine = append(firstLine, tb.line)
			starts = append(starts, nil)
			durs = append(durs, nil)
		}
		origin = math.Min(origin, end-d)
		starts[i] = append(starts[i], end-d)
		durs[i] = append(durs[i], d)
	}
	if len(fns) == 0 {
		return nil, fmt.Errorf("%s: no invocations", name)
	}
	t := &Trace{}
	var last float64
	for i := range fns {
		for _, s := range starts[i] {
			last = math.Max(last, s-origin)
		}
	}
	t.Minutes = int(last/60) + 1
	maxMs := opts.maxDurationMs()
	for i, f := range fns {
		order := make([]int, len(starts[i]))
		for j := range order {
			order[j] = j
		}
		ss, ds := starts[i], durs[i]
		sort.SliceStable(order, func(x, y int) bool { return ss[order[x]] < ss[order[y]] })
		f.PerMinute = make([]int32, t.Minutes)
		ms := make([]float64, len(order))
		for j, o := range order {
			off := ss[o] - origin
			f.Starts = append(f.Starts, time.Duration(off*1e9))
			f.Durations = append(f.Durations, time.Duration(ds[o]*1e9))
			f.PerMinute[int(off/60)]++
			ms[j] = ds[o] * 1000
		}
		f.Duration = summarize(ms)
		if f.Duration.Average > maxMs {
			return nil, rowError(name, firstLine[i], "function %s (first here) runs %.0f ms on average, longer than %.0f ms",
				f.ID(), f.Duration.Average, maxMs)
		}
	}
	for _, f := range fns {
		t.Functions = append(t.Functions, *f)
	}
	return t, nil
}

// signed is a number that may be negative.
func (t *table) signed(rec []string, c string) (float64, error) {
	s := t.get(rec, c)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, rowError(t.name, t.line, "%s %q is not a number", c, s)
	}
	return v, nil
}

// WriteAzure2021 writes t's invocations in the 2021 format (functions with
// Starts; a 2019-format trace has none: Expand gives them starts first).
func WriteAzure2021(t *Trace, w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(invocation2021Columns)
	for i := range t.Functions {
		f := &t.Functions[i]
		for j, s := range f.Starts {
			d := f.Durations[j]
			_ = cw.Write([]string{f.App, f.Name, strconv.FormatFloat((s + d).Seconds(), 'f', 6, 64), strconv.FormatFloat(d.Seconds(), 'f', 3, 64)})
		}
	}
	cw.Flush()
	if cw.Error() != nil {
		return fmt.Errorf("write invocations: %w", cw.Error())
	}
	return nil
}
