package runner

import (
	"fmt"

	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/local"
	"github.com/faasbench/faasbench/platform/packaging"
	"github.com/faasbench/faasbench/spec"
)

// LoadSpec parses a spec file (with --set style overrides, PATH=YAML) and
// validates it against the platforms, kinds and workloads given. Every
// error is ErrInput's and names the field.
func LoadSpec(path string, sets []string, o Options) (*spec.Parsed, error) {
	p, err := spec.ParseFileWithOverrides(path, sets)
	return validated(p, err, o)
}

// ParseSpec parses a spec given as YAML (file names it in errors and is
// where relative paths start) and validates it as LoadSpec does.
func ParseSpec(file string, yaml []byte, o Options) (*spec.Parsed, error) {
	p, err := spec.Parse(file, yaml)
	return validated(p, err, o)
}

func validated(p *spec.Parsed, err error, o Options) (*spec.Parsed, error) {
	if err == nil {
		err = p.Validate(Known(o))
	}
	if err != nil {
		return nil, inputErr(err)
	}
	return p, nil
}

// Known is what a spec is validated against: the registered platforms and
// kinds, the catalogue's workloads and languages, and each platform's
// checks of a function as it would deploy it.
func Known(o Options) spec.Known {
	cat := o.Catalog
	k := spec.Known{Workloads: cat.Names(), Languages: func(w string) ([]string, bool) {
		wl, ok := cat.Get(w)
		if !ok {
			return nil, false
		}
		return wl.Languages, true
	}, Schedule: experiment.CheckSchedule, Workers: experiment.CheckWorkers, Function: func(ps spec.PlatformSpec, f spec.FunctionSpec, v spec.Vary) error {
		return checkFunction(ps, f, v, cat.Root)
	}, Functions: func(ps spec.PlatformSpec, fs []spec.FunctionSpec) error {
		return packaging.CheckFunctions(ps.Name, ps.Options, len(fs))
	}, ColdStart: func(ps spec.PlatformSpec, f spec.FunctionSpec, v spec.Vary) error {
		return AtEveryPoint(f, v, func(fn platform.Function) error { return packaging.CheckCold(ps.Name, fn, cat.Root) })
	}, Via: func(ps spec.PlatformSpec, via string) error { return packaging.CheckVia(ps.Name, via) }}
	if o.Platforms != nil {
		k.Platforms = o.Platforms.Names()
	}
	k.DataDir = experiment.DataCacheDir()
	k.Kinds = o.kinds().Names()
	return k
}

// AtEveryPoint checks f as the platform will deploy it at every point of
// the vary grid, before anything starts; the error names the point.
func AtEveryPoint(f spec.FunctionSpec, v spec.Vary, check func(platform.Function) error) error {
	for _, pt := range plan.Grid(v) {
		fn, _ := experiment.FunctionOf(f, pt, &experiment.Env{Vars: map[string]string{}})
		if err := check(fn); err != nil {
			return fmt.Errorf("%s%s: %w", f.Name, pt, err)
		}
	}
	return nil
}

// checkFunction checks a function's settings as the platform will read
// them, at every point of the vary grid, before anything starts.
func checkFunction(ps spec.PlatformSpec, f spec.FunctionSpec, v spec.Vary, workloadsDir string) error {
	return AtEveryPoint(f, v, func(fn platform.Function) error {
		if ps.Name != local.Name {
			return packaging.Check(ps.Name, ps.Options, fn, workloadsDir)
		}
		req, err := local.DeployRequestOf(fn)
		if err == nil {
			err = local.ValidateDeploy(req)
		}
		return err
	})
}
