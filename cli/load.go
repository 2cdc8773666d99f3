package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/distrib"
	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/spec"
)

type loadOpts struct {
	concurrency int
	rate        float64
	schedule    string
	maxInFlight int
	maxLag      time.Duration
	seed        uint64
	dryRun      string
	duration    time.Duration
	requests    int64
	timeout     time.Duration
	grace       time.Duration
	method      string
	body        string
	bodyFile    string
	headers     []string
	noKeepAlive bool
	netHTTP     bool
	records     string
	payloadSize int
	resolution  time.Duration
	generators  int
}

func (a *app) loadCmd() *cobra.Command {
	var o loadOpts
	cmd := &cobra.Command{
		Use:   "load URL",
		Short: "Drive load at any HTTP endpoint: closed loop (-c) or open loop (--rate, --schedule)",
		Long: `Drive load at URL and print throughput and latency.

Closed loop (the default, like hey and wrk): --concurrency workers, each sending its next
request when its previous reply arrived.

Open loop (like wrk2 and vegeta): requests are sent at the times a schedule gives, whatever is
in flight, with at most --max-in-flight at once. Latency counts from the intended send time
(corrected for coordinated omission); the uncorrected figure and the generator lag (actual minus
intended send) are reported beside it. --rate R is --schedule constant:R. Schedules:
  constant:RATE            evenly spaced
  poisson:RATE             Poisson arrivals, seeded by --seed
  burst:SIZE/EVERY         SIZE requests at once every EVERY (burst:50/10s)
  stages:D@R,~D@R          steps; ~ ramps linearly from the previous rate (stages:10s@100,~30s@500)
  trace:FILE               CSV of send offsets (column offset_ns, offset_ms or offset_s)
  azure:FILE[#ROW]         Azure Functions trace (per-minute counts), spread evenly in each minute
--dry-run FILE writes the schedule as CSV (index,offset_ns) and sends nothing; trace:FILE replays
it exactly.

The run stops after --duration or --requests, whichever comes first. Failed requests stay in
the figures: latency is kept per outcome class and errors are counted by class.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.load(cmd, args[0], o) },
	}
	f := cmd.Flags()
	f.IntVarP(&o.concurrency, "concurrency", "c", 10, "closed loop: number of concurrent workers")
	f.Float64VarP(&o.rate, "rate", "r", 0, "open loop: requests per second (same as --schedule constant:RATE)")
	f.StringVar(&o.schedule, "schedule", "", "open loop: arrival schedule KIND:ARG (see above)")
	f.IntVar(&o.maxInFlight, "max-in-flight", load.DefaultMaxInFlight, "open loop: most requests in flight at once; a request that finds none free is sent late and counted as lag")
	f.DurationVar(&o.maxLag, "max-lag", 0, "open loop: drop (and count as generator-lag) a request not sent within this of its intended time (0: never drop)")
	f.Uint64Var(&o.seed, "seed", 1, "seed of random schedules (poisson)")
	f.StringVar(&o.dryRun, "dry-run", "", "write the open-loop schedule as CSV to this file (- for stdout) and send nothing")
	f.DurationVarP(&o.duration, "duration", "d", 10*time.Second, "how long to run (0: until --requests or the end of the schedule)")
	f.Int64VarP(&o.requests, "requests", "n", 0, "stop after this many requests (0: until --duration)")
	f.DurationVar(&o.timeout, "timeout", load.DefaultTimeout, "client timeout for connect and each response")
	f.DurationVar(&o.grace, "grace", load.DefaultGrace, "requests in flight when --duration is over may take this long; then they are cut and counted as timeouts (0: cut at the duration)")
	f.StringVarP(&o.method, "method", "m", "", "HTTP method (default GET, or POST with a body)")
	f.StringVar(&o.body, "body", "", "request body")
	f.StringVar(&o.bodyFile, "body-file", "", "read the request body from this file")
	f.StringArrayVarP(&o.headers, "header", "H", nil, "request header 'Name: value' (repeatable)")
	f.BoolVar(&o.noKeepAlive, "no-keepalive", false, "open a new connection for every request")
	f.BoolVar(&o.netHTTP, "net-http", false, "use Go's net/http client instead of faasbench's HTTP/1.1 client (https always uses net/http)")
	f.StringVar(&o.records, "records", "", "write every request as a row to this Parquet file (pandas, DuckDB and polars read it)")
	f.IntVar(&o.payloadSize, "payload-size", 0, "send a body of this many random bytes (seeded by --seed)")
	f.IntVar(&o.generators, "generators", 1, "split the load over N generator processes (faasbench agent) and merge their results exactly")
	f.DurationVar(&o.resolution, "pacing-resolution", 0, "open loop: wake up on a grid of this step and send all that is due (less CPU; up to this much lag); 0: a wake-up per request")
	return cmd
}

// The load commands' bounds are the spec's (one table: spec/validate.go):
// a day of load, a billion requests, an hour's wait for one reply.
const (
	maxLoadDuration = spec.MaxCellDuration
	maxLoadRequests = spec.MaxRequests
	maxLoadTimeout  = spec.MaxTimeout
)

func (a *app) load(cmd *cobra.Command, rawURL string, o loadOpts) error {
	target := load.Target{Method: o.method, URL: rawURL, Header: http.Header{}, Body: []byte(o.body)}
	var err error
	if o.bodyFile != "" {
		if o.body != "" {
			return usageErr("--body and --body-file: give one")
		}
		// Bounded as a spec's payload_file is: a regular file of at most
		// spec.MaxPayloadSize (was: /dev/zero read without end).
		if err := spec.CheckBodyFile(o.bodyFile); err != nil {
			return usageErr("--body-file %s: %v", o.bodyFile, err)
		}
		if target.Body, err = experiment.ReadBody(o.bodyFile); err != nil {
			return usageErr("--body-file: %v", err)
		}
	}
	if o.payloadSize < 0 || o.payloadSize > spec.MaxPayloadSize {
		return usageErr("--payload-size %d: want 0..%d bytes (256 MiB)", o.payloadSize, spec.MaxPayloadSize)
	}
	// The bounds a spec has (spec.MaxConcurrency): -c 20000000 once grew to
	// the machine's whole memory before the first request.
	if o.concurrency < 1 || o.concurrency > spec.MaxConcurrency {
		return usageErr("--concurrency %d: want 1..%d", o.concurrency, spec.MaxConcurrency)
	}
	if o.maxInFlight < 1 || o.maxInFlight > spec.MaxConcurrency {
		return usageErr("--max-in-flight %d: want 1..%d", o.maxInFlight, spec.MaxConcurrency)
	}
	if o.duration > maxLoadDuration || o.requests > maxLoadRequests || o.timeout > maxLoadTimeout {
		return usageErr("--duration %v, --requests %d, --timeout %v: want at most %v, %d and %v", o.duration, o.requests, o.timeout, maxLoadDuration, int64(maxLoadRequests), maxLoadTimeout)
	}
	if o.payloadSize > 0 {
		if len(target.Body) > 0 {
			return usageErr("--payload-size with --body or --body-file: give one")
		}
		target.Body = load.Payload(o.payloadSize, o.seed)
	}
	for _, h := range o.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return usageErr("--header %q: want 'Name: value'", h)
		}
		target.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	if err := target.Validate(); err != nil {
		return usageErr("%v", err)
	}
	if cmd.Flags().Changed("rate") && o.schedule != "" {
		return usageErr("--rate and --schedule: give one")
	}
	// Given, a rate is an open loop: 0, NaN or a negative rate is refused,
	// never taken for "no rate" (a closed loop).
	if cmd.Flags().Changed("rate") && !(o.rate > 0 && o.rate <= 1e7) {
		return usageErr("--rate %v: want a rate in (0, 1e7] requests per second", o.rate)
	}
	if o.rate > 0 {
		o.schedule = fmt.Sprintf("constant:%g", o.rate)
	}
	if o.duration < 0 || o.requests < 0 || o.timeout <= 0 {
		return usageErr("--duration, --requests must not be negative and --timeout must be positive")
	}
	var sched load.Schedule
	model := "closed"
	if o.schedule != "" {
		model = "open"
		sp, err := load.ParseScheduleSpec(o.schedule)
		if err != nil {
			return usageErr("--schedule: %v", err)
		}
		if sched, err = sp.Build(o.seed, o.duration, o.requests); err != nil {
			return usageErr("--schedule: %v", err)
		}
		if o.maxInFlight < 1 || o.maxLag < 0 {
			return usageErr("--max-in-flight must be at least 1 and --max-lag not negative")
		}
	} else if o.dryRun != "" {
		return usageErr("--dry-run needs an open-loop --rate or --schedule")
	}
	if o.dryRun != "" {
		return writeDryRun(a, o.dryRun, sched)
	}
	if o.generators < 1 || o.generators > distrib.MaxGenerators {
		return usageErr("--generators %d: want 1..%d", o.generators, distrib.MaxGenerators)
	}

	if o.grace < 0 || o.grace > maxLoadTimeout {
		return usageErr("--grace %v: want 0..%v", o.grace, maxLoadTimeout)
	}
	grace := o.grace
	if grace == 0 {
		grace = -1 // the engine's "none": cut at the duration
	}
	closed := load.Closed{Concurrency: o.concurrency, Duration: o.duration, Requests: o.requests, Grace: grace}
	if model == "closed" {
		if err := closed.Validate(); err != nil {
			return usageErr("--concurrency/--duration/--requests: %v", err)
		}
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	opts := load.Options{Timeout: o.timeout, NewConnPerRequest: o.noKeepAlive, NetHTTP: o.netHTTP}
	var sink *load.RecordSink
	if o.records != "" {
		f, err := os.Create(o.records)
		if err != nil {
			return usageErr("--records: %v", err)
		}
		defer f.Close()
		workers := o.concurrency
		if model == "open" {
			workers = o.maxInFlight
		}
		sink = load.NewRecordSink(f, 2*workers+4, load.Meta("load", time.Now().UnixNano()))
	}
	var ex load.Executor
	conc := o.concurrency
	if model == "open" {
		conc = o.maxInFlight
		if o.resolution < 0 {
			return usageErr("--pacing-resolution must not be negative")
		}
		ex = load.Open{Schedule: sched, MaxInFlight: o.maxInFlight, MaxLag: o.maxLag, Expected: o.duration, Records: sink, Resolution: o.resolution,
			Deadline: o.duration, Grace: grace}
	} else {
		closed.Records = sink
		ex = closed
	}
	var driver experiment.Driver = experiment.LocalDriver{}
	if o.generators > 1 {
		driver = distrib.Driver{Launch: func(ctx context.Context, allow []string) (*distrib.Coordinator, error) {
			return distrib.Local{N: o.generators, Allow: allow, Stderr: a.env.Stderr}.Start(ctx)
		}}
	}
	ses := driver.Session(opts)
	dr, err := ses.Drive(ctx, ex, target)
	ses.Close()
	if err != nil {
		return err
	}
	res := dr.Result
	if sink != nil {
		written, dropped, serr := sink.Close()
		if serr != nil {
			return serr
		}
		fmt.Fprintf(a.env.Stderr, "records: %d written to %s, %d dropped (the writer fell behind)\n", written, o.records, dropped)
	}
	cell := experiment.CellFigures(plan.Cell{ID: rawURL, Key: rawURL, Function: "-", Workload: "-", Language: "-",
		Concurrency: conc, Repetition: 1}, "none", model, res, dr.Generator, dr.Cores)
	dr.Split.Apply(&cell)
	if a.json() {
		if err := json.NewEncoder(a.env.Stdout).Encode(cell); err != nil {
			return err
		}
	} else {
		printLoad(a, &cell)
	}
	if res.Interrupted {
		return withCode(ExitInterrupted, fmt.Errorf("interrupted"))
	}
	if !cell.Valid {
		return withCode(ExitNothing, fmt.Errorf("nothing valid was measured: %s", strings.Join(cell.Warnings, "; ")))
	}
	return nil
}

func writeDryRun(a *app, path string, s load.Schedule) error {
	w := a.env.Stdout
	if path != "-" {
		f, err := os.Create(path)
		if err != nil {
			return usageErr("--dry-run: %v", err)
		}
		defer f.Close()
		w = f
	}
	n, err := load.WriteSchedule(w, s)
	if err != nil {
		return fmt.Errorf("--dry-run: %w", err)
	}
	fmt.Fprintf(a.env.Stderr, "wrote %d scheduled requests\n", n)
	return nil
}
