package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Known is what validation checks names against.
type Known struct {
	Platforms []string
	// Languages returns a workload's languages, and false if it is unknown.
	Languages func(workload string) ([]string, bool)
	Workloads []string
	// LookupEnv finds the variables functions[].env refers to (nil: os.LookupEnv).
	LookupEnv func(string) (string, bool)
	// FileExists reports whether a functions[].request.payload_file exists (nil: os.Stat).
	FileExists func(string) bool
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

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
	MaxRepetitions = 1000
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
	} else if strings.ContainsAny(s.Name, "/\\ \t\n") {
		add("name", "%q: no slashes or spaces (it names the run directory)", s.Name)
	}
	if s.Platform.Name == "" {
		add("platform.name", "required (one of %s)", strings.Join(k.Platforms, ", "))
	} else if !contains(k.Platforms, s.Platform.Name) {
		add("platform.name", "unknown platform %q (one of %s)", s.Platform.Name, strings.Join(k.Platforms, ", "))
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
		lookup := k.LookupEnv
		if lookup == nil {
			lookup = os.LookupEnv
		}
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
		if r.PayloadFile != "" {
			exists := k.FileExists
			if exists == nil {
				exists = func(p string) bool { st, err := os.Stat(p); return err == nil && !st.IsDir() }
			}
			if !exists(p.Resolve(r.PayloadFile)) {
				add(path+".request.payload_file", "%s: no such file (relative paths start at the spec's directory; faasbench data writes inputs)", r.PayloadFile)
			}
		}
		if r.Path != "" && !strings.HasPrefix(r.Path, "?") && !strings.HasPrefix(r.Path, "/") {
			add(path+".request.path", "%q: start with ? (a query) or / (a sub-path)", r.Path)
		}
		if j, dup := names[f.Name]; dup && f.Name != "" {
			add(path+".name", "%q is also the name of functions[%d]", f.Name, j)
		}
		names[f.Name] = i
	}
	l := &s.Load
	switch l.Model {
	case "closed":
		if len(l.Concurrency) == 0 {
			add("load.concurrency", "required for the closed model: a list such as [1, 8, 32]")
		}
		if len(l.Rate) > 0 {
			add("load.rate", "applies to the open model (load.model: open)")
		}
	case "open":
		if len(l.Rate) == 0 {
			add("load.rate", "required for the open model: requests per second, a list such as [100, 500]")
		}
		if len(l.Concurrency) > 0 {
			add("load.concurrency", "applies to the closed model; the open model bounds in-flight requests with load.max_in_flight")
		}
		if l.Schedule != "constant" && l.Schedule != "poisson" {
			add("load.schedule", "%q: want constant or poisson", l.Schedule)
		}
		if l.MaxInFlight < 1 || l.MaxInFlight > 100000 {
			add("load.max_in_flight", "%d: want 1..100000", l.MaxInFlight)
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
	nonNeg := func(path string, d Duration) {
		if d < 0 {
			add(path, "%v: must not be negative", d)
		}
	}
	nonNeg("load.duration", l.Duration)
	nonNeg("load.warmup", l.Warmup)
	nonNeg("load.cooldown", l.Cooldown)
	if l.Timeout.D() < time.Millisecond {
		add("load.timeout", "%v: want at least 1ms", l.Timeout)
	}
	if l.Requests < 0 {
		add("load.requests", "%d: must not be negative", l.Requests)
	}
	if s.Repetitions < 1 || s.Repetitions > MaxRepetitions {
		add("repetitions", "%d: want 1..%d", s.Repetitions, MaxRepetitions)
	}
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
