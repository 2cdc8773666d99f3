package cli

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/internal/fileutil"
	"github.com/faasbench/faasbench/stats"
	"github.com/faasbench/faasbench/trace"
)

func (a *app) traceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Function traces in the Azure Functions formats: synthesize, sample, show, schedule, replay",
		Long: `Traces of many functions in the formats of the public Azure Functions datasets: the 2019 trace (a
directory of invocations per function and minute, execution-time percentiles per function, memory
percentiles per application, one day per file) and the 2021 trace (one CSV row per invocation: app,
func, end_timestamp, duration). A TRACE argument is such a directory (2019; --day picks the day) or a
2021 CSV file.`,
	}
	cmd.AddCommand(a.traceSynthCmd(), a.traceSampleCmd(), a.traceShowCmd(), a.traceScheduleCmd(), a.traceReplayCmd())
	return cmd
}

func (a *app) traceSynthCmd() *cobra.Command {
	var o trace.SynthOptions
	var out, format string
	var maxDuration time.Duration
	cmd := &cobra.Command{
		Use:   "synth --functions N --out DIR",
		Short: "Write a synthetic trace whose functions follow the distributions Shahrad et al. (ATC 2020) publish",
		Long: `Write a synthetic trace in the 2019 format (or the 2021 one, --format azure2021, its invocations placed
in their minutes as a Poisson process): invocations per day from the paper's Figure 5(a) (45 % of
applications invoked at most hourly, 81 % at most once a minute, a log-normal through the two points),
execution times from its log-normal fit (ln-seconds mean -0.38, sigma 2.36, cut at a minute) and
memory from its Burr XII fit (c 11.652, k 0.221, lambda 107.083 MB). Each function is its own
application with an http trigger, and its invocations in a minute are Poisson around its day's mean.
The same seed writes the same files.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageErr("--out: the directory to write the trace to is required")
			}
			if format != trace.Azure2019 && format != trace.Azure2021 {
				return usageErr("--format %q: want azure2019 or azure2021", format)
			}
			if maxDuration <= 0 || maxDuration > 10*time.Minute {
				return usageErr("--max-duration %v: want (0, 10m]", maxDuration)
			}
			o.MaxDuration = float64(maxDuration) / float64(time.Millisecond)
			t, err := trace.Synthesize(o)
			if err != nil {
				return usageErr("%v", err)
			}
			files, err := writeTrace(t, out, format, o.Seed)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.env.Stdout, "%d functions, %d minutes, %d invocations: %s\n", len(t.Functions), t.Minutes, t.Invocations(), strings.Join(files, ", "))
			return nil
		},
	}
	cmd.Flags().IntVar(&o.Functions, "functions", 0, "how many functions")
	cmd.Flags().IntVar(&o.Minutes, "minutes", trace.MinuteColumns, "minutes of the trace (1..1440)")
	cmd.Flags().Uint64Var(&o.Seed, "seed", 1, "the seed: the same seed writes the same trace")
	cmd.Flags().DurationVar(&maxDuration, "max-duration", time.Minute, "an execution time drawn over this is drawn again (kind trace's trace.max_duration)")
	cmd.Flags().StringVar(&out, "out", "", "the directory to write to (created)")
	cmd.Flags().StringVar(&format, "format", "azure2019", "azure2019 (three files of counts and percentiles) or azure2021 (a row per invocation)")
	return cmd
}

// writeTrace writes t to dir in the format and returns the files' paths.
func writeTrace(t *trace.Trace, dir, format string, seed uint64) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if format == trace.Azure2021 {
		if t.Functions[0].Starts == nil {
			var err error
			if t, err = trace.WithTimestamps(t, trace.Poisson, seed); err != nil {
				return nil, err
			}
		}
		p := filepath.Join(dir, "AzureFunctionsInvocationTraceForTwoWeeksJan2021.txt")
		return []string{p}, fileutil.WriteAtomic(p, func(w io.Writer) error { return trace.WriteAzure2021(t, w) })
	}
	inv, dur, mem := trace.Names2019(1)
	paths := []string{filepath.Join(dir, inv), filepath.Join(dir, dur), filepath.Join(dir, mem)}
	var files []*os.File
	defer func() {
		for _, f := range files {
			_ = f.Close()
		}
	}()
	ws := make([]io.Writer, 3)
	bufs := make([]*bufio.Writer, 3)
	for i, p := range paths {
		f, err := os.Create(p)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		bufs[i] = bufio.NewWriter(f)
		ws[i] = bufs[i]
	}
	if err := trace.WriteAzure2019(t, ws[0], ws[1], ws[2]); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	for i, b := range bufs {
		if err := b.Flush(); err != nil {
			return nil, fmt.Errorf("%s: %w", paths[i], err)
		}
		if err := files[i].Close(); err != nil {
			return nil, fmt.Errorf("%s: %w", paths[i], err)
		}
	}
	files = nil
	return paths, nil
}

// readTrace reads a 2019 day from a directory or a 2021 file (trace.ReadPath);
// bad input is a usage error (exit 2) with the reader's sentence.
func readTrace(path string, day int, opts trace.ReadOptions) (*trace.Trace, string, error) {
	t, format, err := trace.ReadPath(path, trace.PathOptions{ReadOptions: opts, Day: day})
	if err != nil {
		return nil, "", usageErr("%v", err)
	}
	return t, format, nil
}

type traceReadFlags struct {
	day         int
	maxDuration time.Duration
}

func (f *traceReadFlags) add(cmd *cobra.Command) {
	cmd.Flags().IntVar(&f.day, "day", 1, "the day of a 2019 trace (its files' d01..d14)")
	cmd.Flags().DurationVar(&f.maxDuration, "max-duration", time.Minute, "refuse a function whose average execution time is longer")
}

// readFor reads path for a command that writes to out, which must be given
// (what says what it is, for the error).
func (f *traceReadFlags) readFor(path, out, what string) (*trace.Trace, string, error) {
	if out == "" {
		return nil, "", usageErr("--out: %s is required", what)
	}
	return f.read(path)
}

func (f *traceReadFlags) read(path string) (*trace.Trace, string, error) {
	if f.day < 1 || f.day > 14 {
		return nil, "", usageErr("--day %d: the 2019 trace has days 1..14", f.day)
	}
	return readTrace(path, f.day, trace.ReadOptions{MaxDuration: f.maxDuration})
}

func (a *app) traceSampleCmd() *cobra.Command {
	var rf traceReadFlags
	var o trace.SampleOptions
	var out string
	cmd := &cobra.Command{
		Use:   "sample TRACE --n N --out DIR",
		Short: "Pick N functions of a trace that keep its distributions, and say how far they are from it",
		Long: `Pick N functions of a trace keeping its distributions of invocations per day, execution time and
memory: each try is stratified by invocation count (one function drawn in each of N strata of equal
size), and of --tries tries the one nearest the whole trace by Wasserstein distance is kept, as
In-Vitro's sampler does. The distances are printed in decades (between log10 values: 0.1 is a
factor of 1.26 on average). The sample is written in the trace's own format.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, format, err := rf.readFor(args[0], out, "the directory to write the sample to")
			if err != nil {
				return err
			}
			s, d, err := trace.Sample(t, o)
			if err != nil {
				return usageErr("--n: %v", err)
			}
			files, err := writeTrace(s, out, format, o.Seed)
			if err != nil {
				return err
			}
			if a.json() {
				return json.NewEncoder(a.env.Stdout).Encode(map[string]any{"functions": len(s.Functions), "of": len(t.Functions),
					"distance_decades": map[string]any{"rate": finite(d.Rate), "duration": finite(d.Duration), "memory": finite(d.Memory)}, "files": files})
			}
			fmt.Fprintf(a.env.Stdout, "%d of %d functions; Wasserstein distance to the trace (decades): rate %s, duration %s, memory %s\n%s\n",
				len(s.Functions), len(t.Functions), dec(d.Rate), dec(d.Duration), dec(d.Memory), strings.Join(files, "\n"))
			return nil
		},
	}
	rf.add(cmd)
	cmd.Flags().IntVar(&o.N, "n", 0, "functions in the sample")
	cmd.Flags().Uint64Var(&o.Seed, "seed", 1, "the seed: the same seed picks the same sample")
	cmd.Flags().IntVar(&o.Tries, "tries", 20, "candidate samples; the nearest is kept")
	cmd.Flags().StringVar(&out, "out", "", "the directory to write the sample to (created)")
	return cmd
}

func dec(v float64) string {
	if math.IsNaN(v) {
		return "n/a (no data)"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// finite is v for JSON, nil for NaN.
func finite(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

// TraceSummary is what trace show prints.
type TraceSummary struct {
	Format      string `json:"format"`
	Functions   int    `json:"functions"`
	Minutes     int    `json:"minutes"`
	Invocations int64  `json:"invocations"`
	// Per-function distributions at the 1st, 25th, 50th, 75th, 99th percentiles.
	PerDay     []float64 `json:"invocations_per_day"`
	DurationMs []float64 `json:"duration_ms"`
	MemoryMB   []float64 `json:"memory_mb"`
}

var summaryQuantiles = []float64{1, 25, 50, 75, 99}

func summarizeTrace(t *trace.Trace, format string) TraceSummary {
	s := TraceSummary{Format: format, Functions: len(t.Functions), Minutes: t.Minutes, Invocations: t.Invocations()}
	var rate, dur, mem []float64
	for i := range t.Functions {
		f := &t.Functions[i]
		rate = append(rate, float64(f.Invocations())*1440/float64(t.Minutes))
		if f.Duration != nil {
			dur = append(dur, f.Duration.Average)
		}
		if f.MemoryMB != nil {
			mem = append(mem, f.MemoryMB.Average)
		}
	}
	s.PerDay, s.DurationMs, s.MemoryMB = at(rate), at(dur), at(mem)
	return s
}

// at is v's nearest-rank percentiles at summaryQuantiles (nil when empty).
func at(v []float64) []float64 {
	if len(v) == 0 {
		return nil
	}
	sort.Float64s(v)
	out := make([]float64, len(summaryQuantiles))
	for i, q := range summaryQuantiles {
		out[i] = stats.NearestRank(v, q/100)
	}
	return out
}

func (a *app) traceShowCmd() *cobra.Command {
	var rf traceReadFlags
	cmd := &cobra.Command{
		Use:   "show TRACE",
		Short: "A trace's size and its functions' distributions (invocations per day, execution time, memory)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, format, err := rf.read(args[0])
			if err != nil {
				return err
			}
			s := summarizeTrace(t, format)
			if a.json() {
				return json.NewEncoder(a.env.Stdout).Encode(s)
			}
			w := a.env.Stdout
			fmt.Fprintf(w, "%s: %d functions, %d minutes, %d invocations\n", format, s.Functions, s.Minutes, s.Invocations)
			fmt.Fprintf(w, "%-24s %12s %12s %12s %12s %12s\n", "per function", "p1", "p25", "p50", "p75", "p99")
			for _, row := range []struct {
				name string
				v    []float64
			}{{"invocations per day", s.PerDay}, {"execution time (ms)", s.DurationMs}, {"memory (MB)", s.MemoryMB}} {
				fmt.Fprintf(w, "%-24s", row.name)
				if row.v == nil {
					fmt.Fprintf(w, " %12s\n", "no data")
					continue
				}
				for _, v := range row.v {
					fmt.Fprintf(w, " %12s", strconv.FormatFloat(v, 'g', 4, 64))
				}
				fmt.Fprintln(w)
			}
			return nil
		},
	}
	rf.add(cmd)
	return cmd
}

func (a *app) traceScheduleCmd() *cobra.Command {
	var rf traceReadFlags
	var o trace.ArrivalOptions
	var out string
	cmd := &cobra.Command{
		Use:   "schedule TRACE --out FILE",
		Short: "Write a trace's arrivals, merged over its functions: offset_ns,function per row",
		Long: `Write the arrivals a replay of the trace sends: every function's invocations of the minutes chosen
(--start-minute, --minutes), placed in their minutes by --process (even, poisson, or the 2021
trace's own timestamps), time compressed by --compress (60: a minute in a second), each function's
rate capped by --max-rate (what a cap leaves out is counted and printed, never hidden).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, _, err := rf.readFor(args[0], out, "the file to write the arrivals to")
			if err != nil {
				return err
			}
			r, err := trace.Schedule(t, o)
			if err != nil {
				return usageErr("%v", err)
			}
			if err := fileutil.WriteAtomic(out, func(w io.Writer) error {
				cw := csv.NewWriter(bufio.NewWriter(w))
				_ = cw.Write([]string{"offset_ns", "function", "app", "func"})
				for _, ar := range r.Arrivals {
					f := &t.Functions[ar.Function]
					_ = cw.Write([]string{strconv.FormatInt(int64(ar.At), 10), strconv.Itoa(int(ar.Function)), f.App, f.Name})
				}
				cw.Flush()
				return cw.Error()
			}); err != nil {
				return err
			}
			var dropped int64
			for _, d := range r.Dropped {
				dropped += d
			}
			fmt.Fprintf(a.env.Stdout, "%d arrivals over %v from %d functions (%d left out by --max-rate), asking %.3g cores of work (each arrival's execution time, over the replay's length): %s\n",
				len(r.Arrivals), r.Length, len(t.Functions), dropped, r.OfferedCores(t), out)
			return nil
		},
	}
	rf.add(cmd)
	cmd.Flags().StringVar(&o.Process, "process", trace.Poisson, "where a minute's invocations fall: even, poisson or timestamps (2021 traces)")
	cmd.Flags().IntVar(&o.StartMinute, "start-minute", 0, "the first minute replayed (0-based)")
	cmd.Flags().IntVar(&o.Minutes, "minutes", 0, "minutes replayed (0: to the trace's end)")
	cmd.Flags().Float64Var(&o.Compress, "compress", 1, "time runs this many times faster (60: a minute in a second)")
	cmd.Flags().Float64Var(&o.MaxRate, "max-rate", 0, "cap each function's invocations per second of replayed time (0: none)")
	cmd.Flags().Uint64Var(&o.Seed, "seed", 1, "the seed of the poisson process")
	cmd.Flags().StringVar(&out, "out", "", "the CSV file to write")
	return cmd
}
