// Package spec defines the experiment spec (YAML), its defaults and its
// validation. Every error names the field path and the line in the YAML.
package spec

import (
	"os"
	"sort"
	"strings"
	"time"
)

// CurrentVersion is the spec format version this faasbench reads.
const CurrentVersion = 1

// Spec is one experiment.
type Spec struct {
	Version     int    `yaml:"version" json:"version"`
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"description,omitempty"`
	// Labels are the experimenter's own key/value pairs, recorded with the
	// spec in the run's manifest and nowhere used: e.g. the registered rule a
	// run was made under (docs/reproductions/rules.yaml; scripts/repro/run.py).
	Labels map[string]string `yaml:"labels" json:"labels,omitempty"`
	// Kind is the experiment: sweep (default), batch, coldstart, autoscale,
	// baseline, capacity, coldrate or trace; each reads its own section below.
	Kind      string        `yaml:"kind" json:"kind"`
	Vary      Vary          `yaml:"vary" json:"vary,omitempty"`
	Batch     BatchSpec     `yaml:"batch" json:"batch,omitempty"`
	ColdStart ColdStartSpec `yaml:"coldstart" json:"coldstart,omitempty"`
	Autoscale AutoscaleSpec `yaml:"autoscale" json:"autoscale,omitempty"`
	Baseline  BaselineSpec  `yaml:"baseline" json:"baseline,omitempty"`
	Capacity  CapacitySpec  `yaml:"capacity" json:"capacity,omitempty"`
	ColdRate  ColdRateSpec  `yaml:"coldrate" json:"coldrate,omitempty"`
	Trace     TraceSpec     `yaml:"trace" json:"trace,omitempty"`
	// Cost is the price model that turns a cell's resources into money
	// (nil: resources only).
	Cost      *CostSpec      `yaml:"cost" json:"cost,omitempty"`
	Data      []DataSpec     `yaml:"data" json:"data,omitempty"`
	Services  Services       `yaml:"services" json:"services,omitempty"`
	Platform  PlatformSpec   `yaml:"platform" json:"platform"`
	Functions []FunctionSpec `yaml:"functions" json:"functions"`
	Load      LoadSpec       `yaml:"load" json:"load"`
	// Expect says what a cell must show to count as measured (expect.go).
	Expect ExpectSpec `yaml:"expect" json:"expect,omitempty"`
	// Repetitions is how many times every cell runs (with Until, the least).
	Repetitions int `yaml:"repetitions" json:"repetitions"`
	// Until adds repetitions, one round of every cell at a time, until the
	// headline interval of a percentile is narrow enough for every key, or
	// the budget is spent (nil: exactly Repetitions).
	Until *UntilSpec `yaml:"until" json:"until,omitempty"`
	// BetweenRepetitions is what is reset before each repetition after the
	// first: rerun (nothing: the default), redeploy (every function is
	// removed and deployed again: new instances, no warm state) or restart
	// (the platform's own components are restarted too: the local daemon, a
	// cluster platform's controllers, autoscaler, activator and gateway).
	BetweenRepetitions string `yaml:"between_repetitions" json:"between_repetitions,omitempty"`
	// StealRetries is how many times a cell made invalid by the hypervisor
	// stealing CPU time (a fault of the machine, not of the platform or the
	// load) is measured again before it is kept invalid (default 2, 0..10);
	// the dropped measurements' reasons stay in the cell (discarded).
	StealRetries *int `yaml:"steal_retries" json:"steal_retries,omitempty"`
	// Order is how cells are ordered: interleaved (every cell of
	// repetition 1, then of repetition 2, ...) or shuffled (seeded).
	Order string `yaml:"order" json:"order"`
	// Seed drives every random choice (shuffling, payloads, schedules).
	Seed int64 `yaml:"seed" json:"seed"`
}

// PlatformSpec selects and configures the platform.
type PlatformSpec struct {
	Name string `yaml:"name" json:"name"`
	// CPUs pins the local platform and its instances (a CPU list, "0");
	// empty: all but the last online CPU.
	CPUs string `yaml:"cpus" json:"cpus,omitempty"`
	// GeneratorCPUs pins the load generator; empty: the last online CPU.
	GeneratorCPUs string `yaml:"generator_cpus" json:"generator_cpus,omitempty"`
	// Kubeconfig, Context and Namespace select the cluster of a Kubernetes
	// platform (empty: $KUBECONFIG or ~/.kube/config, its current context,
	// the context's namespace); run's --kubeconfig and --context win.
	Kubeconfig string `yaml:"kubeconfig" json:"kubeconfig,omitempty"`
	Context    string `yaml:"context" json:"context,omitempty"`
	Namespace  string `yaml:"namespace" json:"namespace,omitempty"`
	// Options are platform-specific (docs/platforms/<name>.md).
	Options map[string]string `yaml:"options" json:"options,omitempty"`
	// IdleWindow is how long the platform's own footprint is sampled with
	// the functions deployed and no load, before the first cell (absent:
	// 2 s; 0s: not measured).
	IdleWindow *Duration `yaml:"idle_window" json:"idle_window,omitempty"`
}

// FunctionSpec is one function to deploy.
type FunctionSpec struct {
	Name     string `yaml:"name" json:"name"`
	Workload string `yaml:"workload" json:"workload"`
	Language string `yaml:"language" json:"language"`
	Replicas int    `yaml:"replicas" json:"replicas"`
	// Mode: http (a persistent process, default) or fork (a process per request).
	Mode string `yaml:"mode" json:"mode,omitempty"`
	// Workers per instance (worker processes sharing the instance's socket).
	Workers int `yaml:"workers" json:"workers,omitempty"`
	// Concurrency is the per-instance limit (0: none).
	Concurrency int `yaml:"concurrency" json:"concurrency,omitempty"`
	// MemoryMB and CPUs limit each instance (0: no limit).
	MemoryMB int     `yaml:"memory_mb" json:"memory_mb,omitempty"`
	CPUs     float64 `yaml:"cpus" json:"cpus,omitempty"`
	// Settings are platform-specific (the local platform: routing,
	// rebalance, queue_size, queue_timeout, timeout).
	Settings map[string]string `yaml:"settings" json:"settings,omitempty"`
	// Env is given to the function's instances. "${VAR}" in a value is
	// taken from faasbench's own environment when the function is
	// deployed, so a password stays out of the spec and of every result
	// (the manifest keeps the text as written).
	Env map[string]string `yaml:"env" json:"env,omitempty"`
	// Request overrides the workload's default request.
	Request RequestSpec `yaml:"request" json:"request,omitempty"`
	// Measured: false deploys the function without cells of its own (a
	// helper another function calls, such as mapreduce's mapper).
	Measured *bool `yaml:"measured" json:"measured,omitempty"`
}

// IsMeasured reports whether the function has cells of its own.
func (f FunctionSpec) IsMeasured() bool { return f.Measured == nil || *f.Measured }

// RequestSpec is what each request of a function's cells carries.
type RequestSpec struct {
	// Path is appended to the function's URL ("?n=1000"); empty: the workload's.
	Path string `yaml:"path" json:"path,omitempty"`
	// PayloadSize is a body of this many seeded random bytes.
	PayloadSize int `yaml:"payload_size" json:"payload_size,omitempty"`
	// PayloadFile is a body read from a file (e.g. an image of faasbench
	// data images), relative to the spec file's directory.
	PayloadFile string `yaml:"payload_file" json:"payload_file,omitempty"`
	// Expect is the exact body a correct reply has. The workload's own
	// expected body holds only for its default request path.
	Expect string `yaml:"expect" json:"expect,omitempty"`
}

// ExpandEnv returns env with every ${VAR} replaced by lookup(VAR), and the
// names of the variables lookup did not have.
func ExpandEnv(env map[string]string, lookup func(string) (string, bool)) (map[string]string, []string) {
	if len(env) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(env))
	var missing []string
	for k, v := range env {
		out[k] = os.Expand(v, func(name string) string {
			val, ok := lookup(name)
			if !ok {
				missing = append(missing, name)
			}
			return val
		})
	}
	sort.Strings(missing)
	return out, missing
}

// EnvRefs lists the variables of faasbench's own environment the spec's
// functions[].env values refer to (${NAME}; data.* and upstream.* are the
// run's own): what a user passes this way is treated as a secret (redacted
// from everything written).
func (s Spec) EnvRefs() []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range s.Functions {
		for _, v := range f.Env {
			for _, name := range ValueEnvRefs(v) {
				if !seen[name] {
					seen[name] = true
					out = append(out, name)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// ValueEnvRefs lists the variables of faasbench's own environment that one
// env value refers to (${NAME}, not data.* or upstream.*).
func ValueEnvRefs(v string) []string {
	var out []string
	os.Expand(v, func(name string) string {
		if !strings.HasPrefix(name, "data.") && !strings.HasPrefix(name, "upstream.") {
			out = append(out, name)
		}
		return ""
	})
	return out
}

// LoadSpec is the load each cell drives.
type LoadSpec struct {
	// Model: closed (concurrency workers, each waits for its reply) or
	// open (requests at the times a schedule gives, one cell per rate).
	Model       string    `yaml:"model" json:"model"`
	Concurrency []int     `yaml:"concurrency" json:"concurrency,omitempty"`
	Rate        []float64 `yaml:"rate" json:"rate,omitempty"`
	// Schedule is the open loop's arrival process: constant (default) or
	// poisson, at each rate.
	Schedule string `yaml:"schedule" json:"schedule,omitempty"`
	// MaxInFlight bounds an open loop's requests in flight (default 1024).
	MaxInFlight int      `yaml:"max_in_flight" json:"max_in_flight,omitempty"`
	Duration    Duration `yaml:"duration" json:"duration"`
	Requests    int64    `yaml:"requests" json:"requests,omitempty"`
	Warmup      Duration `yaml:"warmup" json:"warmup"`
	// WarmupMax makes the warm-up adaptive: after Warmup, it goes on a
	// second at a time until the per-second throughput and median latency
	// are steady (the steady-state test: MSER and Mann-Kendall), at most
	// this long in all (0: a fixed warm-up of Warmup).
	WarmupMax Duration `yaml:"warmup_max" json:"warmup_max,omitempty"`
	Cooldown  Duration `yaml:"cooldown" json:"cooldown"`
	Timeout   Duration `yaml:"timeout" json:"timeout"`
	// Grace bounds how long requests in flight when a cell's duration is
	// over may still take (unset: load.DefaultGrace, 30 s; 0: none, as
	// load --grace 0); those still in flight then are cut and counted as
	// timeouts. GraceD gives the load engine's value.
	Grace *Duration `yaml:"grace" json:"grace,omitempty"`
	// KeepAlive reuses connections (default true); false opens one per request.
	KeepAlive *bool `yaml:"keep_alive" json:"keep_alive,omitempty"`
	// Records writes every request of every cell to records/<cell>.parquet.
	Records bool `yaml:"records" json:"records,omitempty"`
	// AbortWhenBehind stops the run when an open loop falls behind its
	// schedule (nil: it never does; the cell is then judged afterwards, by
	// its sent share and generator lag).
	AbortWhenBehind *BehindSpec `yaml:"abort_when_behind" json:"abort_when_behind,omitempty"`
	// Generators splits every cell's load over several generator processes
	// and merges their results exactly (nil: one, this process).
	Generators *GeneratorsSpec `yaml:"generators" json:"generators,omitempty"`
}

// BehindSpec is load.abort_when_behind: an open loop that, over Window,
// sent less than 1 - Share of what its schedule offered stops the run (the
// In-Vitro loader aborts at 20 % behind). The cell is kept, marked
// interrupted, and the manifest says why.
type BehindSpec struct {
	Share  float64  `yaml:"share" json:"share"`
	Window Duration `yaml:"window" json:"window"`
}

// UntilSpec is adaptive stopping: repetitions are added until the 95 %
// interval (the bootstrap over repetitions) of the successes' p<P> is
// within ±Within of the pooled p<P> for every key, or Max repetitions ran.
type UntilSpec struct {
	P      float64 `yaml:"p" json:"p"`
	Within float64 `yaml:"within" json:"within"`
	Max    int     `yaml:"max" json:"max"`
}

// CostSpec is a price model: per vCPU-hour, per GB-hour of memory, per
// million requests (a cloud FaaS bill's three parts, or a cluster's
// amortised prices).
type CostSpec struct {
	Currency           string  `yaml:"currency" json:"currency,omitempty"`
	VCPUHour           float64 `yaml:"vcpu_hour" json:"vcpu_hour"`
	GBHour             float64 `yaml:"gb_hour" json:"gb_hour"`
	PerMillionRequests float64 `yaml:"per_million_requests" json:"per_million_requests"`
}

// GeneratorsSpec is load.generators.
type GeneratorsSpec struct {
	// Count is the number of generators (1: this process alone).
	Count int `yaml:"count" json:"count"`
	// Where they run: local (child processes of the run, each pinned to its
	// own part of the generator's CPUs where there are enough) or
	// kubernetes (an Indexed Job of agent pods on the platform's cluster).
	Where string `yaml:"where" json:"where,omitempty"`
	// Image is the agent image (kubernetes; `faasbench image agent` builds it).
	Image string `yaml:"image" json:"image,omitempty"`
	// PullPolicy of the agent image (kubernetes: Always, IfNotPresent, Never).
	PullPolicy string `yaml:"pull_policy" json:"pull_policy,omitempty"`
	// CPU and Memory are each agent pod's request and limit (kubernetes),
	// as Kubernetes quantities ("2", "500m", "1Gi").
	CPU    string `yaml:"cpu" json:"cpu,omitempty"`
	Memory string `yaml:"memory" json:"memory,omitempty"`
	// NodeSelector places the agent pods (kubernetes).
	NodeSelector map[string]string `yaml:"node_selector" json:"node_selector,omitempty"`
	// StartTimeout bounds the wait for the agents to run (kubernetes; default 2m).
	StartTimeout Duration `yaml:"start_timeout" json:"start_timeout,omitempty"`
	// OnMissing: partial (default: a cell goes on with the generators that
	// started, marked partial) or fail (the cell fails).
	OnMissing string `yaml:"on_missing" json:"on_missing,omitempty"`
}

// MaxGenerators bounds load.generators.count.
const MaxGenerators = 256

// GraceD is the load engine's grace for l.Grace: 0 (the engine's default,
// load.DefaultGrace) when unset, -1 (cut at the duration) for 0.
func (l LoadSpec) GraceD() time.Duration {
	switch {
	case l.Grace == nil:
		return 0
	case *l.Grace == 0:
		return -1
	}
	return l.Grace.D()
}

// The levels of spec between_repetitions: what a new repetition starts from.
const (
	RepetitionRerun    = "rerun"
	RepetitionRedeploy = "redeploy"
	RepetitionRestart  = "restart"
)

// Defaults the spec takes where a field is absent.
const (
	DefaultDuration = Duration(10 * time.Second)
	DefaultWarmup   = Duration(time.Second)
	DefaultTimeout  = Duration(60 * time.Second)
	// DefaultRepetitions: a spec without its own count runs every cell three
	// times, so that each key has an interval across repetitions.
	DefaultRepetitions = 3
)

// ApplyDefaults fills absent fields.
func (s *Spec) ApplyDefaults() {
	if s.Version == 0 {
		s.Version = CurrentVersion
	}
	if s.Repetitions == 0 {
		s.Repetitions = DefaultRepetitions
	}
	if s.Kind == "" {
		s.Kind = KindSweep
	}
	switch s.Kind {
	case KindBatch:
		if s.Batch.MaxAttempts == 0 {
			s.Batch.MaxAttempts = 3
		}
		if s.Batch.InFlight == 0 && s.Batch.InFlightPerReplica == 0 {
			s.Batch.InFlightPerReplica = 2
		}
	case KindColdStart:
		if s.ColdStart.Iterations == 0 {
			s.ColdStart.Iterations = 10
		}
		if s.ColdStart.Warm == 0 {
			s.ColdStart.Warm = 3
		}
	case KindAutoscale:
		if s.Autoscale.Model == "" {
			s.Autoscale.Model = "open"
		}
		if s.Autoscale.SampleEvery == 0 {
			s.Autoscale.SampleEvery = Duration(time.Second)
		}
		if s.Autoscale.After == 0 {
			s.Autoscale.After = Duration(10 * time.Second)
		}
	case KindBaseline:
		if len(s.Baseline.Via) == 0 {
			s.Baseline.Via = []string{"gateway", "direct"}
		}
	case KindTrace:
		t := &s.Trace
		if t.Day == 0 {
			t.Day = 1
		}
		if t.Seed == 0 {
			t.Seed = 1
		}
		if t.Process == "" {
			t.Process = "poisson"
		}
		if t.Minutes == 0 {
			t.Minutes = 1
		}
		if t.Compress == 0 {
			t.Compress = 1
		}
		if t.MaxInFlight == 0 {
			t.MaxInFlight = 64
		}
		if t.MaxLag == 0 {
			t.MaxLag = Duration(time.Second)
		}
		if t.MaxDuration == 0 {
			t.MaxDuration = Duration(time.Minute)
		}
		if t.DeployParallel == 0 {
			t.DeployParallel = 4
		}
	case KindColdRate:
		c := &s.ColdRate
		if c.Step == 0 {
			c.Step = Duration(5 * time.Second)
		}
		if c.Bound == 0 {
			c.Bound = Duration(5 * time.Second)
		}
	case KindCapacity:
		c := &s.Capacity
		if s.Load.Model == "" {
			s.Load.Model = "open" // a capacity is an offered rate
		}
		if c.Percentile == 0 {
			c.Percentile = 99
		}
		if c.MaxErrors == nil {
			e := 0.001
			c.MaxErrors = &e
		}
		if c.Start == 0 {
			c.Start = 10
		}
		if c.Max == 0 {
			c.Max = 100000
		}
		if c.Tolerance == 0 {
			c.Tolerance = 0.05
		}
		if c.Step == 0 {
			c.Step = Duration(10 * time.Second)
		}
		if c.Validate == 0 {
			c.Validate = 3 * c.Step
		}
		if c.MaxSteps == 0 {
			c.MaxSteps = 30
		}
		if c.InvalidRetries == nil {
			n := 2
			c.InvalidRetries = &n
		}
	}
	if s.BetweenRepetitions == "" {
		s.BetweenRepetitions = RepetitionRerun
	}
	if s.StealRetries == nil {
		n := DefaultStealRetries
		s.StealRetries = &n
	}
	if s.Order == "" {
		s.Order = "interleaved"
	}
	if s.Load.Model == "" {
		s.Load.Model = "closed"
	}
	if s.Load.Model == "open" {
		if s.Load.Schedule == "" {
			s.Load.Schedule = "constant"
		}
		if s.Load.MaxInFlight == 0 {
			s.Load.MaxInFlight = 1024
		}
	}
	if s.Load.Duration == 0 && s.Load.Requests == 0 {
		s.Load.Duration = DefaultDuration
	}
	if s.Load.Warmup == 0 {
		s.Load.Warmup = DefaultWarmup
	}
	if s.Load.Timeout == 0 {
		s.Load.Timeout = DefaultTimeout
	}
	if s.Load.KeepAlive == nil {
		t := true
		s.Load.KeepAlive = &t
	}
	for i := range s.Functions {
		f := &s.Functions[i]
		if f.Name == "" && f.Workload != "" && f.Language != "" {
			f.Name = f.Workload + "-" + f.Language
		}
		if f.Replicas == 0 {
			f.Replicas = 1
		}
	}
}
