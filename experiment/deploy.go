package experiment

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/spec"
)

// FunctionOf is what to deploy for a function of the spec at a grid point.
func FunctionOf(f spec.FunctionSpec, ps plan.Params, env *Env) (platform.Function, error) {
	fn := platform.Function{Name: f.Name, Workload: f.Workload, Language: f.Language, Replicas: f.Replicas,
		Mode: f.Mode, Workers: f.Workers, Concurrency: f.Concurrency, MemoryMB: int64(f.MemoryMB), CPUs: f.CPUs, Settings: map[string]string{}}
	for k, v := range f.Settings {
		fn.Settings[k] = v
	}
	if env == nil {
		env = &Env{}
	}
	vars, missing := spec.ExpandEnv(f.Env, env.Lookup)
	if len(missing) > 0 {
		return fn, fmt.Errorf("deploy %s: env refers to %s, not set in faasbench's environment", f.Name, strings.Join(missing, ", "))
	}
	fn.Env = vars
	fn.SecretEnv = secretEnv(f.Env)
	for _, p := range ps {
		switch p.Name {
		case "replicas":
			fn.Replicas, _ = strconv.Atoi(p.Value)
		case "workers":
			fn.Workers, _ = strconv.Atoi(p.Value)
		case "mode":
			fn.Mode = p.Value
		case "memory_mb":
			fn.MemoryMB, _ = strconv.ParseInt(p.Value, 10, 64)
		case "cpus":
			fn.CPUs, _ = strconv.ParseFloat(p.Value, 64)
		case "routing":
			fn.Settings["routing"] = p.Value
		}
	}
	return fn, nil
}

func (s *Sweep) deploy(ctx context.Context, fn platform.Function) error {
	if err := s.Platform.Deploy(ctx, fn); err != nil {
		return fmt.Errorf("deploy %s: %w", fn.Name, err)
	}
	if s.deployed == nil {
		s.deployed = map[string]platform.Function{}
	}
	s.deployed[fn.Name] = fn
	return nil
}

// functionSpec is the spec's function called name (the plan only names
// functions of the spec).
func functionSpec(sp spec.Spec, name string) spec.FunctionSpec {
	for _, f := range sp.Functions {
		if f.Name == name {
			return f
		}
	}
	return spec.FunctionSpec{}
}

// ensure makes the platform run the cell's function as its grid point
// says: a replica count alone is a scale; anything else a redeploy.
func (s *Sweep) ensure(ctx context.Context, sp spec.Spec, pc plan.Cell) error {
	want, err := FunctionOf(functionSpec(sp, pc.Function), pc.Params, s.Env)
	if err != nil {
		return err
	}
	have, ok := s.deployed[pc.Function]
	if ok && reflect.DeepEqual(have, want) {
		return nil
	}
	if ok {
		scaled := have
		scaled.Replicas = want.Replicas
		if reflect.DeepEqual(scaled, want) {
			if err := s.Platform.Scale(ctx, want.Name, want.Replicas); err != nil {
				return fmt.Errorf("scale %s to %d: %w", want.Name, want.Replicas, err)
			}
			s.deployed[want.Name] = want
			return nil
		}
		if err := s.Platform.Remove(ctx, want.Name); err != nil {
			return fmt.Errorf("remove %s to redeploy it: %w", want.Name, err)
		}
		delete(s.deployed, want.Name)
	}
	fmt.Fprintf(s.Log, "deploying %s%s\n", want.Name, pc.Params)
	return s.deploy(ctx, want)
}

// contentionWarning says when a cell's instances outnumber the platform's
// cores: beyond that, more instances measure contention, not scaling.
func contentionWarning(pc plan.Cell, cores int) []string {
	if cores <= 0 || pc.Replicas <= cores {
		return nil
	}
	return []string{fmt.Sprintf("%d instances on %d platform core(s): beyond %d instances this measures contention for the cores, not scaling", pc.Replicas, cores, cores)}
}

// secretEnv names the entries of env whose values take something from
// faasbench's own environment (${VAR}, not the run's own data.* and
// upstream.*): what a user passes that way is treated as a secret.
func secretEnv(env map[string]string) []string {
	var out []string
	for k, v := range env {
		if len(spec.ValueEnvRefs(v)) > 0 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
