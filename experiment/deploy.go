package experiment

import (
	"fmt"
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

// ServerOf is function f's server for the via=server cells (baseline.server):
// the same workload as a plain server beside the platform's function, in
// the server's language (default f's), one replica with the server's
// workers, and f's environment; no autoscaling, concurrency limit, memory
// quota, mode or settings of the platform's.
func ServerOf(f spec.FunctionSpec, srv *spec.BaselineServer, env *Env) (platform.Function, error) {
	if srv == nil {
		srv = &spec.BaselineServer{}
	}
	fn, err := FunctionOf(spec.FunctionSpec{Name: f.Name + spec.ServerSuffix, Workload: f.Workload, Language: f.Language,
		Replicas: 1, Workers: srv.Workers, Env: f.Env}, nil, env)
	if srv.Language != "" {
		fn.Language = srv.Language
	}
	fn.Server = true
	return fn, err
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
