package spec

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/faasbench/faasbench/stats"
)

// Known is what validation checks names against.
type Known struct {
	Platforms []string
	// Kinds are the experiment kinds (nil: the built-in Kinds); a kind's
	// own section is checked where this package knows it.
	Kinds []string
	// Languages returns a workload's languages, and false if it is unknown.
	Languages func(workload string) ([]string, bool)
	Workloads []string
	// Schedule checks autoscale.schedule (nil: not checked).
	Schedule func(schedule string, duration time.Duration) error
	// Workers checks autoscale.workers (nil: not checked).
	Workers func(workers string, duration time.Duration) error
	// Function checks a function as the platform would deploy it at each
	// point of the vary grid (nil: not checked); the error names the setting.
	Function func(p PlatformSpec, f FunctionSpec, v Vary) error
	// Functions checks the spec's functions together against the platform (nil: not checked),
	// e.g. OpenFaaS CE's limit of 15 functions.
	Functions func(p PlatformSpec, fs []FunctionSpec) error
	// ColdStart checks that the platform can force a cold start of a function (nil: not
	// checked), for the coldstart kind's forced iterations.
	ColdStart func(p PlatformSpec, f FunctionSpec, v Vary) error
	// Via checks that the platform can call a function as baseline.via's entry says (nil: not checked):
	// OpenWhisk's actions are called through its controller only (no via direct).
	Via func(p PlatformSpec, via string) error
	// LookupEnv finds the variables functions[].env refers to (nil: os.LookupEnv).
	LookupEnv func(string) (string, bool)
	// FileExists reports whether a functions[].request.payload_file exists (nil: os.Stat).
	FileExists func(string) bool
	// DataDir is the data directory (faasbench data): a spec's files may be
	// read from it and from the spec's own directory, from nowhere else.
	DataDir string
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Roots are the directories a spec's files may be read from: the spec's
// own directory (the working directory for a spec not read from a file)
// and the data directory faasbench data writes to.
func (p *Parsed) Roots(k Known) []string {
	dir := "."
	if p.File != "" {
		dir = filepath.Dir(p.File)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return []string{dir, k.DataDir}
}

// Resolve returns path relative to the spec file's directory (absolute
// paths, and specs not read from a file, leave it as it is).
func (p *Parsed) Resolve(path string) string {
	if path == "" || filepath.IsAbs(path) || p.File == "" {
		return path
	}
	return filepath.Join(filepath.Dir(p.File), path)
}

// Limits that keep one machine's runs sane.
const (
	MaxPayloadSize = 256 << 20
	MaxConcurrency = 10000
	// MaxInFlight bounds an open loop's requests in flight (load.max_in_flight).
	MaxInFlight    = 100000
	MaxRepetitions = 1000
	// A cell whose machine was starved is measured again at most this
	// many times; DefaultStealRetries when the spec does not say.
	MaxStealRetries     = 10
	DefaultStealRetries = 2
)

// specNameRE is a spec's name: it names the run directory and the run's id.
var specNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// MaxCellDuration bounds load.duration: a day per cell.
const MaxCellDuration = 24 * time.Hour

// The rest of the one bounds table specs, the CLI's load commands and the
// distributed agents' jobs share (issue 60): a cell's request count, a
// client timeout and a grace (load.timeout, load.grace).
const (
	MaxRequests = 1e9
	MaxTimeout  = time.Hour
)

// Validate checks values; every problem is reported, with its path and line.
func (p *Parsed) Validate(k Known) error {
	s := &p.Spec
	var errs Errors
	add := func(path, format string, args ...any) { errs = append(errs, p.errorf(path, format, args...)) }

	if s.Version != CurrentVersion {
		add("version", "version %d is not supported (this faasbench reads version %d)", s.Version, CurrentVersion)
	}
	if strings.TrimSpace(s.Name) == "" {
		add("name", "required: name the experiment")
	} else if !specNameRE.MatchString(s.Name) {
		add("name", "%q: at most 63 letters, digits, '.', '_' or '-', starting with a letter or digit (it names the run directory and the run's id)", shownKey(s.Name))
	}
	validateLabels(s.Labels, add)
	if s.Platform.Name == "" {
		add("platform.name", "required (one of %s)", strings.Join(k.Platforms, ", "))
	} else if !contains(k.Platforms, s.Platform.Name) {
		add("platform.name", "unknown platform %q (one of %s)", s.Platform.Name, strings.Join(k.Platforms, ", "))
	}
	if s.Platform.Name == "local" {
		for _, f := range [][2]string{{"kubeconfig", s.Platform.Kubeconfig}, {"context", s.Platform.Context}, {"namespace", s.Platform.Namespace}} {
			if f[1] != "" {
				add("platform."+f[0], "the local platform runs no cluster: remove it or choose a Kubernetes platform")
			}
		}
		if len(s.Platform.Options) > 0 {
			add("platform.options", "the local platform has no options (its settings are per function)")
		}
	}
	if len(s.Functions) == 0 {
		add("functions", "required: at least one function")
	}
	names := map[string]int{}
	for i, f := range s.Functions {
		path := fmt.Sprintf("functions[%d]", i)
		langs, ok := k.Languages(f.Workload)
		switch {
		case f.Workload == "":
			add(path+".workload", "required (one of %s)", strings.Join(k.Workloads, ", "))
		case !ok:
			add(path+".workload", "unknown workload %q (one of %s)", f.Workload, strings.Join(k.Workloads, ", "))
		case f.Language == "":
			add(path+".language", "required (%s has %s)", f.Workload, strings.Join(langs, ", "))
		case !contains(langs, f.Language):
			add(path+".language", "workload %s has no %q implementation (it has %s)", f.Workload, f.Language, strings.Join(langs, ", "))
		}
		if f.Name != "" && !functionNameRE.MatchString(f.Name) {
			add(path+".name", "%q: a function name is a DNS label (lower-case letters, digits and '-', at most 63): it goes in URLs and object names", f.Name)
		}
		if f.MemoryMB < 0 || f.MemoryMB > MaxMemoryMB || (f.MemoryMB > 0 && f.MemoryMB < 16) {
			add(path+".memory_mb", "%d: want 0 (no limit) or 16..%d", f.MemoryMB, MaxMemoryMB)
		}
		if !(f.CPUs >= 0 && f.CPUs <= 256) {
			add(path+".cpus", "%v: want 0 (no limit) up to 256 cores", f.CPUs)
		}
		if f.Replicas < 0 || f.Replicas > 64 {
			add(path+".replicas", "%d: want 1..64", f.Replicas)
		}
		if f.Mode != "" && f.Mode != "http" && f.Mode != "fork" {
			add(path+".mode", "%q: want http or fork", f.Mode)
		}
		if f.Workers < 0 || f.Workers > 256 {
			add(path+".workers", "%d: want 1..256", f.Workers)
		}
		if f.Concurrency < 0 || f.Concurrency > MaxConcurrency {
			add(path+".concurrency", "%d: want 0 (no limit)..%d", f.Concurrency, MaxConcurrency)
		}
		lookup := p.lookup(k)
		for name, v := range f.Env {
			if !envNameRE.MatchString(name) {
				add(path+".env."+name, "%q is not an environment variable name", name)
			}
			if _, missing := ExpandEnv(map[string]string{name: v}, lookup); len(missing) > 0 {
				add(path+".env."+name, "%s is not set in faasbench's environment (the value %q refers to it)", strings.Join(missing, ", "), v)
			}
		}
		r := f.Request
		if r.PayloadSize < 0 || r.PayloadSize > MaxPayloadSize {
			add(path+".request.payload_size", "%d: want 0..%d bytes", r.PayloadSize, MaxPayloadSize)
		}
		if r.PayloadFile != "" && r.PayloadSize != 0 {
			add(path+".request.payload_file", "give payload_file or payload_size, not both")
		}
		if r.PayloadFile != "" && !strings.Contains(r.PayloadFile, "${") {
			if k.FileExists != nil {
				if !k.FileExists(p.Resolve(r.PayloadFile)) {
					add(path+".request.payload_file", "%s: no such file (relative paths start at the spec's directory; faasbench data writes inputs)", r.PayloadFile)
				}
			} else if err := CheckPayloadFile(p.Resolve(r.PayloadFile), p.Roots(k)...); err != nil {
				add(path+".request.payload_file", "%s: %v", r.PayloadFile, err)
			}
		}
		if i := strings.IndexFunc(r.Path, func(c rune) bool { return c <= ' ' || c == 0x7f }); i >= 0 || len(r.Path) > 8192 {
			add(path+".request.path", "%q: a space or control byte (percent-encode it) or longer than 8192 bytes", r.Path)
		}
		if r.Path != "" && !strings.HasPrefix(r.Path, "?") && !strings.HasPrefix(r.Path, "/") {
			add(path+".request.path", "%q: start with ? (a query) or / (a sub-path)", r.Path)
		}
		if k.Function != nil && f.Workload != "" && contains(k.Platforms, s.Platform.Name) {
			if err := k.Function(s.Platform, f, s.Vary); err != nil {
				add(path, "%v", err)
			}
		}
		if j, dup := names[f.Name]; dup && f.Name != "" {
			add(path+".name", "%q is also the name of functions[%d]", f.Name, j)
		}
		names[f.Name] = i
	}
	if k.Functions != nil && contains(k.Platforms, s.Platform.Name) {
		if err := k.Functions(s.Platform, s.Functions); err != nil {
			add("functions", "%v", err)
		}
	}
	kinds := k.Kinds
	if kinds == nil {
		kinds = Kinds
	}
	if !contains(kinds, s.Kind) {
		add("kind", "unknown experiment kind %q (one of %s)", s.Kind, strings.Join(kinds, ", "))
	}
	p.validateKind(k, add)
	p.validateData(add)
	p.validateServices(add)
	l := &s.Load
	loadLevels := s.Kind == KindSweep || s.Kind == KindBaseline
	// batch, coldstart and autoscale drive load of their own: no levels needed.
	switch l.Model {
	case "closed":
		if len(l.Concurrency) == 0 && loadLevels {
			add("load.concurrency", "required for the closed model: a list such as [1, 8, 32]")
		}
		if len(l.Rate) > 0 {
			add("load.rate", "applies to the open model (load.model: open)")
		}
	case "open":
		if len(l.Rate) == 0 && loadLevels {
			add("load.rate", "required for the open model: requests per second, a list such as [100, 500]")
		}
		if len(l.Concurrency) > 0 {
			add("load.concurrency", "applies to the closed model; the open model bounds in-flight requests with load.max_in_flight")
		}
		if l.Schedule != "constant" && l.Schedule != "poisson" {
			add("load.schedule", "%q: want constant or poisson", l.Schedule)
		}
		if l.MaxInFlight < 1 || l.MaxInFlight > MaxInFlight {
			add("load.max_in_flight", "%d: want 1..%d", l.MaxInFlight, MaxInFlight)
		}
		for i, r := range l.Rate {
			if !(r > 0 && r <= 1e7) {
				add(fmt.Sprintf("load.rate[%d]", i), "%v: want a rate in (0, 1e7] requests per second", r)
			}
		}
	default:
		add("load.model", "unknown model %q (closed or open)", l.Model)
	}
	for i, c := range l.Concurrency {
		if c < 1 || c > MaxConcurrency {
			add(fmt.Sprintf("load.concurrency[%d]", i), "%d: want 1..%d", c, MaxConcurrency)
		}
	}
	// A repeated value makes two cells with one ID, each overwriting the
	// other's results.
	dup := func(path string, at int, v any) {
		if at >= 0 {
			add(fmt.Sprintf("%s[%d]", path, at), "%v is already in the list: two cells would have one ID; use repetitions to measure a point again", v)
		}
	}
	if i := repeatAt(l.Concurrency); i >= 0 {
		dup("load.concurrency", i, l.Concurrency[i])
	}
	if i := repeatAt(l.Rate); i >= 0 {
		dup("load.rate", i, l.Rate[i])
	}
	v := s.Vary
	for _, c := range []struct {
		path string
		at   int
		val  func(int) any
	}{
		{"vary.replicas", repeatAt(v.Replicas), func(i int) any { return v.Replicas[i] }},
		{"vary.workers", repeatAt(v.Workers), func(i int) any { return v.Workers[i] }},
		{"vary.mode", repeatAt(v.Mode), func(i int) any { return v.Mode[i] }},
		{"vary.memory_mb", repeatAt(v.MemoryMB), func(i int) any { return v.MemoryMB[i] }},
		{"vary.cpus", repeatAt(v.CPUs), func(i int) any { return v.CPUs[i] }},
		{"vary.routing", repeatAt(v.Routing), func(i int) any { return v.Routing[i] }},
		{"vary.payload_size", repeatAt(v.PayloadSize), func(i int) any { return v.PayloadSize[i] }},
		{"vary.path", repeatAt(v.Path), func(i int) any { return v.Path[i] }},
	} {
		if c.at >= 0 {
			dup(c.path, c.at, c.val(c.at))
		}
	}
	nonNeg := func(path string, d Duration) {
		if d < 0 {
			add(path, "%v: must not be negative", d)
		}
	}
	if c := s.Cost; c != nil {
		for path, v := range map[string]float64{"cost.vcpu_hour": c.VCPUHour, "cost.gb_hour": c.GBHour, "cost.per_million_requests": c.PerMillionRequests} {
			if !(v >= 0 && v < 1e6) {
				add(path, "%v: want a price in [0, 1e6)", v)
			}
		}
		if len(c.Currency) > 8 {
			add("cost.currency", "%q: want a short code such as USD", c.Currency)
		}
	}
	if g := l.Generators; g != nil {
		p.validateGenerators(g, add)
	}
	if b := l.AbortWhenBehind; b != nil {
		validateBehind(s, b, add)
	}
	nonNeg("load.duration", l.Duration)
	nonNeg("load.warmup", l.Warmup)
	if wm := l.WarmupMax.D(); wm != 0 {
		switch {
		case wm < l.Warmup.D()+time.Duration(stats.WarmupMinSteps)*time.Second || wm > 10*time.Minute:
			add("load.warmup_max", "%v: want at least load.warmup + %d s (the seconds an adaptive warm-up is judged on), at most 10m", l.WarmupMax, stats.WarmupMinSteps)
		case s.Kind != KindSweep && s.Kind != KindBaseline:
			add("load.warmup_max", "kind %s: an adaptive warm-up applies to kinds sweep and baseline", s.Kind)
		}
	}
	nonNeg("load.cooldown", l.Cooldown)
	if l.Grace != nil {
		nonNeg("load.grace", *l.Grace)
	}
	// Bounds (#60): a run a typo made endless is no study; longer cells are split into repetitions.
	for _, b := range []struct {
		path string
		d    Duration
		max  time.Duration
	}{{"load.duration", l.Duration, MaxCellDuration}, {"load.warmup", l.Warmup, time.Hour}, {"load.cooldown", l.Cooldown, time.Hour}, {"load.timeout", l.Timeout, MaxTimeout}, {"load.grace", Duration(max(l.GraceD(), 0)), MaxTimeout}} {
		if b.d.D() > b.max {
			add(b.path, "%v: at most %v", b.d, b.max)
		}
	}
	if l.Timeout.D() < time.Millisecond {
		add("load.timeout", "%v: want at least 1ms", l.Timeout)
	}
	if l.Requests < 0 {
		add("load.requests", "%d: must not be negative", l.Requests)
	}
	if u := s.Until; u != nil {
		switch u.P {
		case 50, 90, 99, 99.9:
		default:
			add("until.p", "%v: want 50, 90, 99 or 99.9 (the percentile whose interval decides)", u.P)
		}
		if !(u.Within > 0 && u.Within < 1) {
			add("until.within", "%v: want a share in (0, 1), e.g. 0.05 for ±5 %%", u.Within)
		}
		if u.Max < max(s.Repetitions, 2) || u.Max > MaxRepetitions {
			add("until.max", "%d: want at least repetitions (and 2), at most %d", u.Max, MaxRepetitions)
		}
		if s.Kind != KindSweep && s.Kind != KindBaseline {
			add("until", "kind %s: adaptive repetitions apply to kinds sweep and baseline (their cells are load levels with latency histograms)", s.Kind)
		}
	}
	if s.Repetitions < 1 || s.Repetitions > MaxRepetitions {
		add("repetitions", "%d: want 1..%d", s.Repetitions, MaxRepetitions)
	}
	if n := s.StealRetries; n != nil && (*n < 0 || *n > MaxStealRetries) {
		add("steal_retries", "%d: want 0..%d", *n, MaxStealRetries)
	}
	switch s.BetweenRepetitions {
	case RepetitionRerun, RepetitionRedeploy, RepetitionRestart:
	default:
		add("between_repetitions", "%q: want rerun, redeploy (every function deployed again) or restart (the platform's components too)", s.BetweenRepetitions)
	}
	fnNames := make([]string, 0, len(s.Functions))
	for _, f := range s.Functions {
		fnNames = append(fnNames, f.Name)
	}
	validateExpect(s.Expect, fnNames, s.Vary.dimensions(), add)
	if s.Order != "interleaved" && s.Order != "shuffled" {
		add("order", "%q: want interleaved or shuffled", s.Order)
	}
	if len(errs) > 0 {
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
		return errs
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// repeatAt is the index of the first value that repeats an earlier one (-1: none).
func repeatAt[T comparable](list []T) int {
	seen := make(map[T]bool, len(list))
	for i, v := range list {
		if seen[v] {
			return i
		}
		seen[v] = true
	}
	return -1
}

var functionNameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// validateBehind checks load.abort_when_behind: a share of the offered
// requests and a window, where an open loop runs.
func validateBehind(s *Spec, b *BehindSpec, add func(string, string, ...any)) {
	if !(b.Share > 0 && b.Share < 1) {
		add("load.abort_when_behind.share", "%v: want a share above 0 and below 1 (0.2: stop when under 80 %% of the offered requests went out)", b.Share)
	}
	if w := b.Window.D(); w < 100*time.Millisecond || w > time.Hour {
		add("load.abort_when_behind.window", "%v: want 100ms to 1h", b.Window)
	}
	open := (s.Kind == KindSweep || s.Kind == KindBaseline) && s.Load.Model == "open"
	if s.Kind == KindAutoscale && s.Autoscale.Model != "closed" {
		open = true
	}
	switch {
	case s.Kind == KindCapacity:
		add("load.abort_when_behind", "kind capacity goes past what the platform can take on purpose, and judges each rate itself")
	case !open:
		add("load.abort_when_behind", "applies to an open loop (kinds sweep and baseline with load.model open, or autoscale with its open model)")
	}
}
