package spec

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// validateKind checks the section of the spec's kind.
func (p *Parsed) validateKind(k Known, add func(path, format string, args ...any)) {
	s := &p.Spec
	v := s.Vary
	for i, n := range v.Replicas {
		if n < 1 || n > 64 {
			add(fmt.Sprintf("vary.replicas[%d]", i), "%d: want 1..64", n)
		}
	}
	for i, n := range v.Workers {
		if n < 1 || n > 256 {
			add(fmt.Sprintf("vary.workers[%d]", i), "%d: want 1..256", n)
		}
	}
	for i, m := range v.Mode {
		if m != "http" && m != "fork" {
			add(fmt.Sprintf("vary.mode[%d]", i), "%q: want http or fork", m)
		}
	}
	for i, n := range v.MemoryMB {
		if n < 16 || n > MaxMemoryMB {
			add(fmt.Sprintf("vary.memory_mb[%d]", i), "%d: want 16..%d", n, MaxMemoryMB)
		}
	}
	if n, limit := s.CellCount(), MaxCells(); n > limit {
		add("vary", "%d cells (functions × every list of load and vary × repetitions): more than %d; narrow the grid, or raise the limit with %s=N", n, limit, MaxCellsEnv)
	}
	for i, c := range v.CPUs {
		if !(c > 0 && c <= 256) {
			add(fmt.Sprintf("vary.cpus[%d]", i), "%v: want (0, 256] cores", c)
		}
	}
	for i, r := range v.Routing {
		if r != "round-robin" && r != "least-outstanding" && r != "pinned" {
			add(fmt.Sprintf("vary.routing[%d]", i), "%q: want round-robin, least-outstanding or pinned", r)
		}
	}
	for i, n := range v.PayloadSize {
		if n < 1 || n > MaxPayloadSize {
			add(fmt.Sprintf("vary.payload_size[%d]", i), "%d: want 1..%d bytes", n, MaxPayloadSize)
		}
	}
	for i, q := range v.Path {
		if !strings.HasPrefix(q, "?") && !strings.HasPrefix(q, "/") {
			add(fmt.Sprintf("vary.path[%d]", i), "%q: start with ? (a query) or / (a sub-path)", q)
		}
	}
	switch s.Kind {
	case KindBatch:
		b := s.Batch
		if b.Items < 0 || b.Items > 1_000_000 {
			add("batch.items", "%d: want 1..1000000", b.Items)
		}
		switch {
		case len(b.Burst) > 0 && (b.Items > 0 || b.Files != ""):
			add("batch.burst", "a burst is N copies of the function's request: give batch.burst, or batch.items/batch.files, not both")
		case len(b.Burst) == 0 && b.Items == 0 && b.Files == "":
			add("batch", "give batch.items (requests of the function's request), batch.files (a glob of inputs) or batch.burst (N requests at once)")
		case len(b.Burst) > 0 && b.Native:
			add("batch.native", "a native baseline processes batch.items or batch.files on the bare host; a burst measures the platform's answer to N requests at once")
		}
		for i, n := range b.Burst {
			if n < 1 || n > 100000 {
				add(fmt.Sprintf("batch.burst[%d]", i), "%d: want 1..100000 requests", n)
			}
		}
		if j := repeatAt(b.Burst); j >= 0 {
			add(fmt.Sprintf("batch.burst[%d]", j), "%d is already in the list: two cells would have one ID", b.Burst[j])
		}
		if b.Files != "" && !strings.Contains(b.Files, "${") {
			m, err := filepath.Glob(p.Resolve(b.Files))
			if err != nil || len(m) == 0 {
				add("batch.files", "%q matches no file (relative to the spec; faasbench data writes inputs)", b.Files)
			}
			for _, f := range m {
				if err := CheckPayloadFile(f, p.Roots(k)...); err != nil {
					add("batch.files", "%s: %v", f, err)
					break
				}
			}
		}
		if b.InFlight < 0 || b.InFlightPerReplica < 0 || b.InFlight > 100000 || b.InFlightPerReplica > 1000 {
			add("batch.in_flight", "in_flight %d, in_flight_per_replica %d: want 1..100000 and 1..1000", b.InFlight, b.InFlightPerReplica)
		}
		if b.MaxAttempts < 1 || b.MaxAttempts > 100 {
			add("batch.max_attempts", "%d: want 1..100 (bounded: seed 000's unbounded retries hid overload)", b.MaxAttempts)
		}
	case KindColdStart:
		c := s.ColdStart
		if c.Iterations < 1 || c.Iterations > 10000 {
			add("coldstart.iterations", "%d: want 1..10000", c.Iterations)
		}
		if c.Warm < 0 || c.Warm > 1000 {
			add("coldstart.warm", "%d: want 0..1000", c.Warm)
		}
		for i, d := range c.Idle {
			if d < 0 || d.D() > time.Hour {
				add(fmt.Sprintf("coldstart.idle[%d]", i), "%v: want 0..1h", d)
			}
		}
		if c.EvictImage && len(c.Idle) > 0 {
			add("coldstart.evict_image", "applies to forced cold starts, not to an idle sweep (coldstart.idle)")
		}
		if c.EvictImage && s.Platform.Name == "local" {
			add("coldstart.evict_image", "the local platform runs processes, not images: nothing to pull; use a Kubernetes platform")
		}
		if len(c.Idle) == 0 && k.ColdStart != nil && contains(k.Platforms, s.Platform.Name) {
			for i, f := range s.Functions {
				if err := k.ColdStart(s.Platform, f, s.Vary); err != nil {
					add(fmt.Sprintf("functions[%d]", i), "kind coldstart: %v", err)
				}
			}
		}
	case KindAutoscale:
		a := s.Autoscale
		switch a.Model {
		case "open":
			if a.Schedule == "" {
				add("autoscale.schedule", "required for the open model: a load shape such as constant:50, burst:100/5s, stages:10s@10,20s@100")
			} else if k.Schedule != nil {
				if err := k.Schedule(a.Schedule, a.Duration.D()); err != nil {
					add("autoscale.schedule", "%v", err)
				}
			}
			if a.Workers != "" {
				add("autoscale.workers", "applies to the closed model (autoscale.model: closed)")
			}
		case "closed":
			if a.Workers == "" {
				add("autoscale.workers", "required for the closed model: outstanding requests, N or stages:20s@100,40s@0")
			} else if k.Workers != nil {
				if err := k.Workers(a.Workers, a.Duration.D()); err != nil {
					add("autoscale.workers", "%v", err)
				}
			}
			if a.Schedule != "" {
				add("autoscale.schedule", "applies to the open model; the closed model's load is autoscale.workers")
			}
		default:
			add("autoscale.model", "%q: want open or closed", a.Model)
		}
		if a.Duration < 0 || a.Duration.D() > 24*time.Hour {
			add("autoscale.duration", "%v: want 0..24h", a.Duration)
		}
		if a.SampleEvery.D() < 100*time.Millisecond {
			add("autoscale.sample_every", "%v: want at least 100ms", a.SampleEvery)
		}
		switch {
		case a.InstanceRPS < 0 || a.InstanceRPS > 1e7:
			add("autoscale.instance_rps", "%v: want a rate in (0, 1e7] req/s", a.InstanceRPS)
		case a.InstanceRPS > 0 && a.Model == "closed":
			add("autoscale.instance_rps", "elasticity needs a demand that does not depend on the platform: the open model only")
		}
	}
	if s.Kind == KindCapacity {
		p.validateCapacity(add)
	}
	if s.Kind == KindColdRate {
		p.validateColdRate(add)
	}
	if s.Kind == KindTrace {
		p.validateTrace(k, add)
	}
	switch s.Kind {
	case KindBaseline, KindBatch:
		for i, v := range s.Baseline.Via {
			if v != "gateway" && v != "direct" && v != "server" {
				add(fmt.Sprintf("baseline.via[%d]", i), "%q: want gateway, direct or server", v)
			} else if k.Via != nil && contains(k.Platforms, s.Platform.Name) {
				if err := k.Via(s.Platform, v); err != nil {
					add(fmt.Sprintf("baseline.via[%d]", i), "%q: %v", v, err)
				}
			}
		}
		if j := repeatAt(s.Baseline.Via); j >= 0 {
			add(fmt.Sprintf("baseline.via[%d]", j), "%q is already in the list: two cells would have one ID", s.Baseline.Via[j])
		}
		p.validateServer(k, add)
	default:
		if len(s.Baseline.Via) > 0 {
			add("baseline.via", "only kinds baseline and batch call a function past its gateway; kind %s does not", s.Kind)
		}
		if s.Baseline.Server != nil {
			add("baseline.server", "only kinds baseline and batch have a server (baseline.via: server); kind %s does not", s.Kind)
		}
	}
}

// validateCapacity checks kind capacity's section and its load.
func (p *Parsed) validateCapacity(add func(path, format string, args ...any)) {
	s := &p.Spec
	c := s.Capacity
	switch c.Percentile {
	case 50, 90, 99, 99.9:
	default:
		add("capacity.percentile", "%v: want 50, 90, 99 or 99.9", c.Percentile)
	}
	if !(c.LatencyMs > 0 && c.LatencyMs <= 3_600_000) {
		add("capacity.latency_ms", "%v: required, the SLO's latency in ms (0, 3600000]", c.LatencyMs)
	}
	if e := *c.MaxErrors; !(e >= 0 && e < 1) {
		add("capacity.max_errors", "%v: want a share in [0, 1)", e)
	}
	if !(c.Start > 0 && c.Start <= 1e7) {
		add("capacity.start", "%v: want a rate in (0, 1e7] req/s", c.Start)
	}
	if !(c.Max >= c.Start && c.Max <= 1e7) {
		add("capacity.max", "%v: want a rate in [start, 1e7] req/s", c.Max)
	}
	if !(c.Tolerance > 0 && c.Tolerance <= 1) {
		add("capacity.tolerance", "%v: want (0, 1]", c.Tolerance)
	}
	if c.Step.D() < 500*time.Millisecond || c.Step.D() > time.Hour {
		add("capacity.step", "%v: want 500ms..1h", c.Step)
	}
	if c.Validate.D() < c.Step.D() || c.Validate.D() > 24*time.Hour {
		add("capacity.validate", "%v: want at least one step, at most 24h", c.Validate)
	}
	if c.MaxSteps < 2 || c.MaxSteps > 200 {
		add("capacity.max_steps", "%d: want 2..200", c.MaxSteps)
	}
	if n := *c.InvalidRetries; n < 0 || n > 10 {
		add("capacity.invalid_retries", "%d: want 0..10", n)
	}
	if s.Load.Model != "open" {
		add("load.model", "%q: kind capacity searches an offered rate: the open model only", s.Load.Model)
	}
	if len(s.Load.Rate) > 0 {
		add("load.rate", "kind capacity chooses its rates (capacity.start, capacity.max): leave load.rate out")
	}
	if len(s.Load.Concurrency) > 1 {
		add("load.concurrency", "kind capacity runs one in-flight bound (load.max_in_flight)")
	}
}

// validateColdRate checks kind coldrate's section and what it leaves out.
func (p *Parsed) validateColdRate(add func(path, format string, args ...any)) {
	s := &p.Spec
	c := s.ColdRate
	if len(c.Rates) == 0 {
		add("coldrate.rates", "required: the steps' cold starts a second, rising (e.g. [1, 2, 5, 10])")
	}
	if d := c.Step.D(); d < 100*time.Millisecond || d > time.Hour {
		add("coldrate.step", "%v: want 100ms..1h", c.Step)
	}
	if b := c.Bound.D(); b < time.Millisecond || b > 10*time.Minute {
		add("coldrate.bound", "%v: want 1ms..10m", c.Bound)
	}
	prev := 0.0
	for i, r := range c.Rates {
		calls := math.Round(r * c.Step.D().Seconds())
		switch {
		case !(r > prev) || math.IsInf(r, 0):
			add(fmt.Sprintf("coldrate.rates[%d]", i), "%v: want positive, finite and rising", r)
		case calls > MaxColdRateCalls:
			add(fmt.Sprintf("coldrate.rates[%d]", i), "%v over %v is %.0f functions to deploy: at most %d a step", r, c.Step, calls, MaxColdRateCalls)
		}
		prev = max(prev, r)
	}
	if len(s.Load.Rate) > 0 {
		add("load.rate", "kind coldrate offers its own rates (coldrate.rates): leave load.rate out")
	}
	if len(s.Vary.Replicas) > 0 {
		add("vary.replicas", "kind coldrate deploys every function at zero instances: each call must meet none")
	}
	if s.Load.Generators != nil {
		add("load.generators", "kind coldrate calls from this process: one call a function, no load to split")
	}
}

// validateTrace checks kind trace's section, then loads its replay as the
// run will (the trace read, sampled and scheduled): a bad row, a sample
// larger than the trace, a replay too long are refused before anything
// starts, with the file's row.
func (p *Parsed) validateTrace(k Known, add func(path, format string, args ...any)) {
	s := &p.Spec
	t := s.Trace
	bad := false
	fail := func(path, format string, args ...any) {
		bad = true
		add(path, format, args...)
	}
	switch {
	case t.File == "" && t.Functions == 0:
		fail("trace", "give trace.file (a 2019 day's directory or a 2021 CSV file) or trace.functions (a synthetic trace of that many)")
	case t.File != "" && t.Functions != 0:
		fail("trace.functions", "a synthetic trace's size, with trace.file given: give one of them")
	case t.File == "" && (t.Functions < 1 || t.Functions > 100_000):
		fail("trace.functions", "%d: want 1..100000", t.Functions)
	}
	if t.Day < 1 || t.Day > 14 {
		fail("trace.day", "%d: the 2019 trace has days 1..14", t.Day)
	}
	if t.Seed < 1 {
		fail("trace.seed", "%d: want a positive seed", t.Seed)
	}
	if t.Sample < 0 || t.Sample > MaxTraceFunctions {
		fail("trace.sample", "%d: want 0 (every function) or 1..%d", t.Sample, MaxTraceFunctions)
	}
	switch t.Process {
	case "even", "poisson", "timestamps":
	default:
		fail("trace.process", "%q: want even, poisson or timestamps", t.Process)
	}
	if t.StartMinute < 0 || t.StartMinute >= 20160 {
		fail("trace.start_minute", "%d: want 0..20159 (two weeks of minutes)", t.StartMinute)
	}
	if t.Minutes < 1 || t.Minutes > 20160 {
		fail("trace.minutes", "%d: want 1..20160", t.Minutes)
	}
	if !(t.Compress >= 1 && t.Compress <= 3600) {
		fail("trace.compress", "%v: want 1..3600 (time runs that many times faster)", t.Compress)
	}
	if !(t.MaxRate >= 0 && t.MaxRate <= 1e6) {
		fail("trace.max_rate", "%v: want 0 (no cap) or a rate up to 1e6 a second", t.MaxRate)
	}
	if t.MaxInFlight < 1 || t.MaxInFlight > MaxConcurrency {
		fail("trace.max_in_flight", "%d: want 1..%d", t.MaxInFlight, MaxConcurrency)
	}
	if t.MaxLag < 0 || t.MaxLag.D() > time.Hour {
		fail("trace.max_lag", "%v: want 0 (never drop) ..1h", t.MaxLag)
	}
	if d := t.MaxDuration.D(); d < time.Millisecond || d > 10*time.Minute {
		fail("trace.max_duration", "%v: want 1ms..10m (the trace function spins at most 10 minutes)", t.MaxDuration)
	}
	if t.DeployParallel < 1 || t.DeployParallel > 64 {
		fail("trace.deploy_parallel", "%d: want 1..64", t.DeployParallel)
	}
	if len(s.Load.Rate) > 0 || len(s.Load.Concurrency) > 0 {
		fail("load", "kind trace sends each function's invocations at the trace's times: leave load.rate and load.concurrency out")
	}
	if s.Load.Generators != nil {
		fail("load.generators", "kind trace replays from this process")
	}
	if len(s.Functions) > 1 {
		fail("functions", "kind trace copies one function for every function of the trace: give one")
	}
	if bad {
		return
	}
	roots := p.Roots(k)
	path := p.Resolve(t.File)
	if t.File != "" {
		if err := Contained(path, roots...); err != nil {
			add("trace.file", "%s: %v", t.File, err)
			return
		}
	}
	if _, err := t.Load(path, func(f string) error { return Contained(f, roots...) }); err != nil {
		var te *TraceError
		if errors.As(err, &te) {
			add(te.Field, "%v", te.Err)
			return
		}
		add("trace", "%v", err)
	}
}

// validateServer checks baseline.server against the via list and the
// functions: each function's server (NAME-server) must be a name of its own
// and in a language its workload has.
func (p *Parsed) validateServer(k Known, add func(path, format string, args ...any)) {
	s := &p.Spec
	srv := s.Baseline.Server
	if !slices.Contains(s.Baseline.Via, "server") {
		if srv != nil {
			add("baseline.server", "is set but baseline.via has no server: nothing would call it")
		}
		return
	}
	if srv == nil {
		srv = &BaselineServer{}
	}
	if srv.Workers < 0 || srv.Workers > 1024 {
		add("baseline.server.workers", "%d: want 0 (the runtime's default) or 1..1024", srv.Workers)
	}
	names := map[string]bool{}
	for _, f := range s.Functions {
		names[f.Name] = true
	}
	for i, f := range s.Functions {
		path := fmt.Sprintf("functions[%d].name", i)
		if name := f.Name + ServerSuffix; len(name) > 63 {
			add(path, "%q: with baseline.via server at most %d characters (its server is %s%s, a DNS label)", f.Name, 63-len(ServerSuffix), f.Name, ServerSuffix)
		} else if names[name] {
			add(path, "%q: its server would be called %s, the name of another function", f.Name, name)
		}
		lang := srv.Language
		if lang == "" || k.Languages == nil {
			continue
		}
		if langs, ok := k.Languages(f.Workload); ok && !slices.Contains(langs, lang) {
			add("baseline.server.language", "workload %s (functions[%d]) has no %q (%s)", f.Workload, i, lang, strings.Join(langs, ", "))
		}
	}
}
