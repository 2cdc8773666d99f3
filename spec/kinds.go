package spec

// Experiment kinds.
const (
	KindSweep     = "sweep"
	KindBatch     = "batch"
	KindColdStart = "coldstart"
	KindAutoscale = "autoscale"
	KindBaseline  = "baseline"
	KindCapacity  = "capacity"
	KindColdRate  = "coldrate"
	KindTrace     = "trace"
)

// Kinds lists the experiment kinds.
var Kinds = []string{KindSweep, KindBatch, KindColdStart, KindAutoscale, KindBaseline, KindCapacity, KindColdRate, KindTrace}

// ColdRateSpec is kind coldrate: a platform's cold-start throughput. Each
// step deploys rate × step fresh copies of a function at zero instances
// and calls each once, evenly at the rate, so every call is a cold start;
// per step, the cold starts completed a second and their latency. The knee
// is the highest rate sustained (every call ok and cold, p99 within Bound,
// completed at the rate) with every lower rate sustained too.
type ColdRateSpec struct {
	// Rates are the steps' cold starts a second, rising.
	Rates []float64 `yaml:"rates" json:"rates"`
	// Step is how long each rate is held (default 5s): rate × step calls.
	Step Duration `yaml:"step" json:"step,omitempty"`
	// Bound is the p99 a sustained rate keeps within (default 5s,
	// Kubernetes' pod start-up SLO).
	Bound Duration `yaml:"bound" json:"bound,omitempty"`
	// KeepGoing measures every rate; by default the curve ends at the
	// first rate past the knee.
	KeepGoing bool `yaml:"keep_going" json:"keep_going,omitempty"`
}

// TraceSpec is kind trace: many functions at once, each on its own arrival
// schedule from a trace in the Azure Functions formats (package trace), or
// from one synthesized with the published distributions. Each function of
// the trace (or of a sample of it) is a copy of the spec's function,
// deployed, called with the query parameters ms and mb set to its average
// execution time and memory (the spin workload's), and removed after.
type TraceSpec struct {
	// File is a trace: a directory holding one day of the 2019 trace, or a
	// 2021 CSV file; relative to the spec's directory. Empty: Synthesize.
	File string `yaml:"file" json:"file,omitempty"`
	// Day is the 2019 trace's day (1..14, default 1).
	Day int `yaml:"day" json:"day,omitempty"`
	// Functions, with no file, synthesizes a trace of that many functions
	// (faasbench trace synth's distributions) of start_minute + minutes
	// minutes.
	Functions int `yaml:"functions" json:"functions,omitempty"`
	// Sample replays that many functions picked to keep the trace's
	// distributions (0: every function).
	Sample int `yaml:"sample" json:"sample,omitempty"`
	// Seed is the synthesis', the sample's and the Poisson process' seed
	// (default 1).
	Seed int64 `yaml:"seed" json:"seed,omitempty"`
	// Process places a minute's invocations: even, poisson (default) or
	// timestamps (the 2021 trace's own).
	Process string `yaml:"process" json:"process,omitempty"`
	// StartMinute (0-based) and Minutes (default 1) are the part replayed.
	StartMinute int `yaml:"start_minute" json:"start_minute,omitempty"`
	Minutes     int `yaml:"minutes" json:"minutes,omitempty"`
	// Compress runs time this many times faster (default 1; 60: a minute
	// in a second).
	Compress float64 `yaml:"compress" json:"compress,omitempty"`
	// MaxRate caps each function's invocations a second of replayed time
	// (0: none); what it leaves out is counted.
	MaxRate float64 `yaml:"max_rate" json:"max_rate,omitempty"`
	// MaxInFlight bounds each function's requests in flight (default 64).
	MaxInFlight int `yaml:"max_in_flight" json:"max_in_flight,omitempty"`
	// MaxLag drops, and counts, a request that cannot be sent within it of
	// its time (default 1s).
	MaxLag Duration `yaml:"max_lag" json:"max_lag,omitempty"`
	// MaxDuration refuses a trace function whose average execution time is
	// longer (default 1m).
	MaxDuration Duration `yaml:"max_duration" json:"max_duration,omitempty"`
	// DeployParallel is how many copies are deployed at once (default 4).
	DeployParallel int `yaml:"deploy_parallel" json:"deploy_parallel,omitempty"`
}

// MaxTraceFunctions bounds the functions kind trace deploys and replays.
const MaxTraceFunctions = 5000

// MaxColdRateCalls bounds the functions one step of kind coldrate deploys.
const MaxColdRateCalls = 5000

// CapacitySpec is kind capacity: the highest offered rate at which a
// function keeps its SLO (a percentile of its latency and a share of
// errors), found by a search over open-loop steps that converges within
// Tolerance and is then confirmed by a longer validation run.
type CapacitySpec struct {
	// Percentile and LatencyMs are the SLO's latency: p<Percentile> ≤
	// LatencyMs (Percentile 50, 90, 99 or 99.9; default 99).
	Percentile float64 `yaml:"percentile" json:"percentile,omitempty"`
	LatencyMs  float64 `yaml:"latency_ms" json:"latency_ms"`
	// MaxErrors is the share of failed requests the SLO allows (default 0.001).
	MaxErrors *float64 `yaml:"max_errors" json:"max_errors,omitempty"`
	// Start is the first rate tried, Max the highest (req/s; defaults 10 and 100000).
	Start float64 `yaml:"start" json:"start,omitempty"`
	Max   float64 `yaml:"max" json:"max,omitempty"`
	// Tolerance ends the search when (lowest missing − highest meeting) ÷
	// highest meeting is at most this (default 0.05).
	Tolerance float64 `yaml:"tolerance" json:"tolerance,omitempty"`
	// Step is each search step's length (default 10s: at least the
	// autoscaler's window, or fix the replicas); a step is lengthened to
	// collect the percentile's minimum sample count at its rate.
	Step Duration `yaml:"step" json:"step,omitempty"`
	// Validate is the confirming run's length at the rate found (default 3 steps).
	Validate Duration `yaml:"validate" json:"validate,omitempty"`
	// MaxSteps bounds the steps of one search (default 30).
	MaxSteps int `yaml:"max_steps" json:"max_steps,omitempty"`
	// InvalidRetries: how many times a step whose generator was starved
	// (steal, lag, saturation) is run again before it counts as missing (default 2).
	InvalidRetries *int `yaml:"invalid_retries" json:"invalid_retries,omitempty"`
}

// Vary is a grid over function parameters: every combination of the
// listed values is a cell of its own (for every function and load level).
// An empty list leaves the function's own value.
type Vary struct {
	Replicas    []int     `yaml:"replicas" json:"replicas,omitempty"`
	Workers     []int     `yaml:"workers" json:"workers,omitempty"`
	Mode        []string  `yaml:"mode" json:"mode,omitempty"`
	MemoryMB    []int     `yaml:"memory_mb" json:"memory_mb,omitempty"`
	CPUs        []float64 `yaml:"cpus" json:"cpus,omitempty"`
	Routing     []string  `yaml:"routing" json:"routing,omitempty"`
	PayloadSize []int     `yaml:"payload_size" json:"payload_size,omitempty"`
	Path        []string  `yaml:"path" json:"path,omitempty"`
}

// dimensions are the names a cell's grid values go by: the vary lists the
// spec sets, the load level, and the kinds' own (via, idle, burst).
func (v Vary) dimensions() []string {
	d := []string{"concurrency", "rate", "replicas", "via", "idle", "burst"}
	for _, x := range []struct {
		name string
		n    int
	}{{"workers", len(v.Workers)}, {"mode", len(v.Mode)}, {"memory_mb", len(v.MemoryMB)}, {"cpus", len(v.CPUs)},
		{"routing", len(v.Routing)}, {"payload_size", len(v.PayloadSize)}, {"path", len(v.Path)}} {
		if x.n > 0 {
			d = append(d, x.name)
		}
	}
	return d
}

// BatchSpec is seed 000's coordinator: process a fixed set of items with
// a bounded number of requests in flight, retrying failed items.
type BatchSpec struct {
	// Items is how many requests of the function's request make the batch
	// (seed 000: 100 per payload size); with Files, each file is one item.
	Items int `yaml:"items" json:"items,omitempty"`
	// Files is a glob of input files, relative to the spec (e.g. the
	// images of faasbench data images).
	Files string `yaml:"files" json:"files,omitempty"`
	// InFlightPerReplica: at most this × replicas requests in flight (seed
	// 000: 2 for images, 4 for bytes). InFlight, if set, is a fixed bound.
	InFlightPerReplica int `yaml:"in_flight_per_replica" json:"in_flight_per_replica,omitempty"`
	InFlight           int `yaml:"in_flight" json:"in_flight,omitempty"`
	// MaxAttempts bounds the attempts per item (seed 000 retried forever).
	MaxAttempts int `yaml:"max_attempts" json:"max_attempts,omitempty"`
	// Burst, if set, makes each cell one burst of N copies of the
	// function's request, all in flight at once, timed as a whole (seed
	// 004's tester: N simultaneous requests fired once): one cell per N,
	// in place of Items and Files.
	Burst []int `yaml:"burst" json:"burst,omitempty"`
	// Native adds, beside each cell, the same items processed on the bare
	// host by the workload's native program (its cpp/native.cpp, built with
	// OpenMP), one thread per CPU of the platform, with no platform and no
	// network: seed 000's baseline. Not with Burst.
	Native bool `yaml:"native" json:"native,omitempty"`
}

// ColdStartSpec: per iteration, make the next call cold, send one request,
// verify it was cold from two sources.
type ColdStartSpec struct {
	Iterations int `yaml:"iterations" json:"iterations,omitempty"`
	// Warm is how many warm requests follow each cold one (default 3): the
	// warm latency to compare with.
	Warm int `yaml:"warm" json:"warm,omitempty"`
	// Idle, if set, is an idle-time sweep: per value, call, wait this
	// long, call again and record whether the second call was cold. The
	// function needs a scale-to-zero setting for idle instances to go.
	Idle []Duration `yaml:"idle" json:"idle,omitempty"`
	// EvictImage: before each forced cold call, once the function's
	// instances are gone, its image is removed from the node, so that the
	// new instance's start pulls it from the registry (kind image-pull;
	// Kubernetes platforms on a node whose CRI socket faasbench reaches:
	// platform.options.image_service_endpoint).
	EvictImage bool `yaml:"evict_image" json:"evict_image,omitempty"`
}

// AutoscaleSpec: a load shape while the replicas and resources are sampled.
type AutoscaleSpec struct {
	// Model is the load's: open (default; Schedule sends at a rate whatever
	// the replies) or closed (Workers keep requests outstanding, as seed
	// 003's wrk did, so throughput rises as the platform scales).
	Model string `yaml:"model" json:"model,omitempty"`
	// Schedule is the open loop's load schedule (faasbench load --schedule syntax):
	// constant:R, poisson:R, burst:N/T, stages:D1@R1,D2@R2 (~D@R ramps), trace:FILE.
	Schedule string `yaml:"schedule" json:"schedule"`
	// Workers is the closed loop's outstanding requests: N throughout, or
	// stages:D1@N1,D2@N2 (~D@N ramps; a stage of 0 is idle: a bursty load).
	Workers string `yaml:"workers" json:"workers,omitempty"`
	// Duration of the load (the schedule's own length for stages/trace).
	Duration Duration `yaml:"duration" json:"duration,omitempty"`
	// After is how long sampling goes on after the load ends, to see the
	// scale-down (default 10 s).
	After Duration `yaml:"after" json:"after,omitempty"`
	// SampleEvery is the sampling interval (default 1 s; seed 003: 2 s).
	SampleEvery Duration `yaml:"sample_every" json:"sample_every,omitempty"`
	// InstanceRPS is what one instance serves within the SLO (kind
	// capacity measures it): with it, an open loop's cells get SPEC RG's
	// BUNGEE elasticity metrics (the instances the demand required each
	// second against those ready).
	InstanceRPS float64 `yaml:"instance_rps" json:"instance_rps,omitempty"`
}

// BaselineSpec: the function through the platform against the same
// function without it.
type BaselineSpec struct {
	// Via lists the paths compared: gateway (through the platform), direct
	// (straight to the function's own instance, no gateway: seed 003's Fig
	// 9) and server (a separate always-on server of the same workload,
	// below: seed 004's server-based application, Figs 5.1-5.3). Default
	// gateway and direct for kind baseline; kind batch runs each batch
	// every way listed when set.
	Via []string `yaml:"via" json:"via,omitempty"`
	// Server is what the via=server cells call: for each function F a
	// separate function F-server of the same workload, deployed beside it as
	// a plain server (one replica, no autoscaling, no concurrency limit, no
	// memory quota, its own process) and called past the gateway. Only with
	// via: server.
	Server *BaselineServer `yaml:"server" json:"server,omitempty"`
}

// BaselineServer is the server of the via=server cells.
type BaselineServer struct {
	// Language of the server's implementation (default the function's):
	// seed 004's server was a Java application (Spring Boot) beside
	// JavaScript actions.
	Language string `yaml:"language" json:"language,omitempty"`
	// Workers is the server's worker count where its runtime takes one
	// (0: the runtime's own default; the Java runtime's thread pool grows
	// with the requests in flight, as a servlet container's).
	Workers int `yaml:"workers" json:"workers,omitempty"`
}

// ServerSuffix names a function's server: F-server.
const ServerSuffix = "-server"

// Smoke reduces a spec to a quick run that exercises every part of it:
// cells of at most 1 s after a 200 ms warm-up, one repetition, at most
// two values per list (the first and the last), few iterations and items.
// The full size stays what the file says.
func (s *Spec) Smoke() {
	short := func(d *Duration, max Duration) {
		if *d == 0 || *d > max {
			*d = max
		}
	}
	ends := func(n int) bool { return n > 2 }
	firstLast := func(n int) []int {
		if !ends(n) {
			idx := make([]int, n)
			for i := range idx {
				idx[i] = i
			}
			return idx
		}
		return []int{0, n - 1}
	}
	pickInt := func(xs []int) []int {
		var out []int
		for _, i := range firstLast(len(xs)) {
			out = append(out, xs[i])
		}
		return out
	}
	pickFloat := func(xs []float64) []float64 {
		var out []float64
		for _, i := range firstLast(len(xs)) {
			out = append(out, xs[i])
		}
		return out
	}
	pickStr := func(xs []string) []string {
		var out []string
		for _, i := range firstLast(len(xs)) {
			out = append(out, xs[i])
		}
		return out
	}
	if s.Kind == KindColdRate {
		c := &s.ColdRate
		short(&c.Step, Duration(1e9))
		if len(c.Rates) > 2 {
			c.Rates = c.Rates[:2] // the first two: the smoke size's point is the steps, not the knee
		}
	}
	if s.Kind == KindTrace {
		t := &s.Trace
		// A few functions for one minute, compressed to two seconds: the
		// smoke size's point is the copies and their replay, not the trace.
		if t.File == "" {
			t.Functions = min(t.Functions, 10)
		}
		if t.Sample > 10 {
			t.Sample = 10
		}
		t.Minutes = 1
		t.Compress = max(t.Compress, 30)
	}
	if s.Kind == KindCapacity {
		c := &s.Capacity
		short(&c.Step, Duration(5e8))
		short(&c.Validate, Duration(5e8))
		if c.MaxSteps == 0 || c.MaxSteps > 3 {
			c.MaxSteps = 3
		}
	}
	l := &s.Load
	short(&l.Duration, Duration(1e9))
	if l.Requests > 200 {
		l.Requests = 200
	}
	short(&l.Warmup, Duration(2e8))
	l.Cooldown = 0
	l.Concurrency = pickInt(l.Concurrency)
	l.Rate = pickFloat(l.Rate)
	s.Repetitions = 1
	v := &s.Vary
	v.Replicas, v.Workers, v.MemoryMB, v.PayloadSize = pickInt(v.Replicas), pickInt(v.Workers), pickInt(v.MemoryMB), pickInt(v.PayloadSize)
	v.CPUs = pickFloat(v.CPUs)
	v.Mode, v.Routing, v.Path = pickStr(v.Mode), pickStr(v.Routing), pickStr(v.Path)
	if len(s.Batch.Burst) > 0 {
		s.Batch.Burst = []int{min(s.Batch.Burst[0], 10)}
	}
	if s.Batch.Items > 10 {
		s.Batch.Items = 10
	}
	if s.ColdStart.Iterations > 3 {
		s.ColdStart.Iterations = 3
	}
	if len(s.ColdStart.Idle) > 2 {
		s.ColdStart.Idle = []Duration{s.ColdStart.Idle[0], s.ColdStart.Idle[len(s.ColdStart.Idle)-1]}
	}
	for i := range s.Data {
		d := &s.Data[i]
		d.Count = min(max(d.Count, 1), 10)
		if d.Side == 0 || d.Side > 200 {
			d.Side = 200
		}
		if d.Words == 0 || d.Words > 500 {
			d.Words = 500
		}
		for j := range d.SizesMB {
			d.SizesMB[j] /= 100
		}
	}
	short(&s.Autoscale.Duration, Duration(4e9))
	short(&s.Autoscale.After, Duration(2e9))
}

// DataSpec is input data generated from the spec's seed before the run
// (faasbench data does the same by hand), cached by its parameters. A
// value "${data.NAME}" in functions[].env, request.payload_file or
// batch.files is its directory.
type DataSpec struct {
	Name string `yaml:"name" json:"name"`
	// Kind: images (seed 000's PNGs), corpus (documents doc-0000.txt ...),
	// text (one file per size: text-0.txt, text-1.txt, ...).
	Kind  string `yaml:"kind" json:"kind"`
	Count int    `yaml:"count" json:"count,omitempty"` // images
	Side  int    `yaml:"side" json:"side,omitempty"`   // images: pixels (default 800)
	Docs  int    `yaml:"docs" json:"docs,omitempty"`   // corpus
	Words int    `yaml:"words" json:"words,omitempty"` // corpus: per document
	// SizesMB: text files of these sizes (seed 002: 10, 25, 50, 100).
	SizesMB []float64 `yaml:"sizes_mb" json:"sizes_mb,omitempty"`
}

// Services are helpers the run starts for its functions and stops after.
type Services struct {
	// Upstream starts faasbench's upstream HTTP server (the fetch
	// workload's; it also serves every data directory under /files/NAME/).
	// "${upstream.url}" is its address.
	Upstream bool `yaml:"upstream" json:"upstream,omitempty"`
	// Listen is the address the services listen on (default
	// 127.0.0.1:0, which only the local platform's instances reach). On a
	// cluster, functions reach faasbench only on an address of the machine
	// faasbench runs on that the pods can route to, e.g. a node's address
	// when faasbench runs on the node: give it, port 0 for any.
	Listen string `yaml:"listen" json:"listen,omitempty"`
}
