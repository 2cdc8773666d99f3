package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/internal/fileutil"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/replay"
	"github.com/faasbench/faasbench/trace"
)

type replayOpts struct {
	url         string
	sample      int
	seed        uint64
	arrivals    trace.ArrivalOptions
	maxInFlight int
	maxLag      time.Duration
	timeout     time.Duration
	out         string
}

func (a *app) traceReplayCmd() *cobra.Command {
	var rf traceReadFlags
	var o replayOpts
	cmd := &cobra.Command{
		Use:   "replay TRACE --url TEMPLATE",
		Short: "Drive every function of a trace (or a sample of it) at once, each on its own schedule",
		Long: `Replay a trace against deployed functions: each function is an open loop of its own with the
trace's arrivals (--process, --start-minute, --minutes, --compress, --max-rate as trace schedule has
them), all started at one instant. --url is each function's address, with {name} (fn-0000, fn-0001, ...
in the trace's order), {index}, {ms} and {mb} (its average execution time and its application's
memory, rounded: the spin workload's parameters), {app} and {func} (the trace's ids). --sample N
replays N functions that keep the trace's distributions (trace sample).

Per function: requests intended and sent (the gap: In-Vitro warns at 10 % and aborts at 20 %; here it
is reported, never hidden), successes, failures, drops (too late to send), cold starts, p50 and p99
from the intended send, and the slowdown (p50 over the function's own time); over the functions:
the totals, the worst gap, the slowdown's percentiles, and intended and sent per replayed minute.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.url == "" {
				return usageErr("--url: each function's address is required (with {name} or {index})")
			}
			if !strings.Contains(o.url, "{name}") && !strings.Contains(o.url, "{index}") && !strings.Contains(o.url, "{app}") {
				return usageErr("--url %q: names no function ({name}, {index} or {app} and {func})", o.url)
			}
			if o.timeout <= 0 || o.timeout > maxLoadTimeout || o.maxLag < 0 || o.maxInFlight < 0 {
				return usageErr("--timeout %v, --max-lag %v, --max-in-flight %d: want a timeout in (0, %v], the others not negative", o.timeout, o.maxLag, o.maxInFlight, maxLoadTimeout)
			}
			t, _, err := rf.read(args[0])
			if err != nil {
				return err
			}
			if o.sample > 0 {
				if t, _, err = trace.Sample(t, trace.SampleOptions{N: o.sample, Seed: o.seed}); err != nil {
					return usageErr("--sample: %v", err)
				}
			}
			if len(t.Functions) > replay.MaxFunctions {
				return usageErr("the trace has %d functions, a replay at most %d: use --sample", len(t.Functions), replay.MaxFunctions)
			}
			o.arrivals.Seed = o.seed
			r, err := trace.Schedule(t, o.arrivals)
			if err != nil {
				return usageErr("%v", err)
			}
			if r.Length > maxLoadDuration {
				return usageErr("the replay would last %v, at most %v: fewer --minutes or more --compress", r.Length, maxLoadDuration)
			}
			fns := replay.FromTrace(t, r, replayName, func(i int, f *trace.Function) load.Target {
				return load.Target{Method: "GET", URL: replayURL(o.url, i, f)}
			})
			cl := load.NewClient(load.Options{Timeout: o.timeout})
			defer cl.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			fmt.Fprintf(a.env.Stderr, "replaying %d functions, %d requests over %v\n", len(fns), len(r.Arrivals), r.Length)
			out, err := replay.Run(ctx, cl, fns, replay.Options{MaxInFlight: o.maxInFlight, MaxLag: o.maxLag, Length: r.Length})
			if err != nil && out == nil {
				return usageErr("%v", err)
			}
			minute := time.Duration(float64(time.Minute) / o.arrivals.Compress)
			sum := replay.Summarize(out, minute)
			if o.out != "" {
				if werr := fileutil.WriteAtomic(o.out, func(w io.Writer) error { return json.NewEncoder(w).Encode(sum) }); werr != nil {
					return werr
				}
			}
			var text strings.Builder
			printReplay(&text, sum)
			if eerr := a.emit(sum, text.String()); eerr != nil {
				return eerr
			}
			if ctx.Err() != nil {
				return withCode(ExitInterrupted, fmt.Errorf("interrupted: the figures above are what was sent before"))
			}
			return err
		},
	}
	rf.add(cmd)
	f := cmd.Flags()
	f.StringVar(&o.url, "url", "", "each function's address: {name}, {index}, {ms}, {mb}, {app}, {func} filled in")
	f.IntVar(&o.sample, "sample", 0, "replay N functions sampled from the trace (0: all)")
	f.Uint64Var(&o.seed, "seed", 1, "the seed of the sample and of the Poisson process")
	f.StringVar(&o.arrivals.Process, "process", trace.Poisson, "where a minute's invocations fall: even, poisson or timestamps (2021 traces)")
	f.IntVar(&o.arrivals.StartMinute, "start-minute", 0, "the first minute replayed (0-based)")
	f.IntVar(&o.arrivals.Minutes, "minutes", 1, "minutes replayed (0: to the trace's end)")
	f.Float64Var(&o.arrivals.Compress, "compress", 1, "time runs this many times faster (60: a minute in a second)")
	f.Float64Var(&o.arrivals.MaxRate, "max-rate", 0, "cap each function's invocations per second of replayed time (0: none)")
	f.IntVar(&o.maxInFlight, "max-in-flight", 64, "each function's requests in flight at most")
	f.DurationVar(&o.maxLag, "max-lag", time.Second, "a request that cannot go out within this of its time is dropped and counted (0: never)")
	f.DurationVar(&o.timeout, "timeout", load.DefaultTimeout, "client timeout for connect and each response")
	f.StringVar(&o.out, "out", "", "also write the figures as JSON to this file")
	return cmd
}

func replayName(i int) string { return fmt.Sprintf("fn-%04d", i) }

// replayURL fills the template for function i.
func replayURL(tmpl string, i int, f *trace.Function) string {
	ms, mb := f.SpinParams()
	return strings.NewReplacer("{name}", replayName(i), "{index}", strconv.Itoa(i), "{ms}", strconv.FormatInt(ms, 10), "{mb}", strconv.FormatInt(mb, 10),
		"{app}", f.App, "{func}", f.Name).Replace(tmpl)
}

// printReplay prints the totals, the minutes, and the functions (the 20
// with the largest gap, then slowdown, when there are more).
func printReplay(w io.Writer, s replay.Summary) {
	fmt.Fprintf(w, "%d functions: %d requests intended, %d sent (gap %.2f %%, worst function %.2f %%, worst function in a minute %.2f %%), %d ok, %d cold starts\n",
		len(s.Functions), s.Intended, s.Sent, 100*s.Gap, 100*s.WorstGap, 100*s.WorstMinuteGap, s.OK, s.ColdStarts)
	fmt.Fprintf(w, "slowdown (p50 over the function's own time) over the functions with a success: p50 %.2f, p90 %.2f, p99 %.2f; %d functions called and never answered\n",
		s.SlowdownP50, s.SlowdownP90, s.SlowdownP99, s.NoSuccess)
	for _, m := range s.Minutes {
		fmt.Fprintf(w, "minute %d: %d intended, %d sent\n", m.Minute, m.Intended, m.Sent)
	}
	fs := append([]replay.FunctionFigures(nil), s.Functions...)
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Gap != fs[j].Gap {
			return fs[i].Gap > fs[j].Gap
		}
		return fs[i].Slowdown > fs[j].Slowdown
	})
	if len(fs) > 20 {
		fmt.Fprintf(w, "the 20 functions with the largest gap, then slowdown, of %d (-o json has them all):\n", len(fs))
		fs = fs[:20]
	}
	fmt.Fprintf(w, "%-8s %9s %9s %9s %7s %7s %6s %9s %9s %9s %9s\n", "function", "intended", "sent", "ok", "failed", "dropped", "cold", "p50 ms", "p99 ms", "exec ms", "slowdown")
	for _, f := range fs {
		fmt.Fprintf(w, "%-8s %9d %9d %9d %7d %7d %6d %9.2f %9.2f %9.1f %9.2f\n", f.Name, f.Intended, f.Sent, f.OK, f.Failed, f.Dropped, f.ColdStarts, f.P50Ms, f.P99Ms, f.ExecMs, f.Slowdown)
	}
}
