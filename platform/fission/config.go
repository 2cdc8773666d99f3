package fission

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Config is the Fission platform's configuration (platform.options).
type Config struct {
	kube.Common
	// RouterURL is Fission's router (default http://router.fission).
	RouterURL string
	// FissionNamespace is where Fission's components run.
	FissionNamespace string
	// WorkloadsDir resolves settings.code_file.
	WorkloadsDir string
}

// ParseConfig reads the options; errors name the option.
func ParseConfig(pc platform.Config) (Config, error) {
	common, own, err := kube.ParseCommon(Name, pc.RunID, pc.Options, []string{"router_url", "fission_namespace"})
	if err != nil {
		return Config{}, err
	}
	c := Config{Common: common, RouterURL: "http://router.fission", FissionNamespace: "fission", WorkloadsDir: pc.WorkloadsDir}
	if v := own["router_url"]; v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("platform.options.router_url: %q is not an http(s) URL", v)
		}
		c.RouterURL = strings.TrimRight(v, "/")
	}
	if v := own["fission_namespace"]; v != "" {
		c.FissionNamespace = v
	}
	return c, nil
}

// DefaultGracePeriod (s) is faasbench's terminationGracePeriodSeconds for a function's pods, where
// Fission's CLI and executor default to 360: Fission sleeps that long in every pod's preStop hook, so
// with 360 each function removed or scaled down holds its pods (and a run's clean-up) six minutes.
// settings.grace_period sets it (360 for Fission's own).
const DefaultGracePeriod = 30

// Executors Fission offers.
const (
	PoolMgr   = "poolmgr"
	NewDeploy = "newdeploy"
	Container = "container"
)

// Settings is a function's Fission configuration.
type Settings struct {
	Executor string
	// EnvImage is the environment's runtime image (poolmgr, newdeploy);
	// Code is the function's code (a file of the workload catalogue, or
	// without code_file the workload packaged for Fission's own environment
	// of its language: WorkloadPackage) and Entrypoint the function in it.
	// Neither: the workload's own image behind faasbench's environment
	// server, <prefix><w>-<lang>-fission.
	EnvImage, Code, Entrypoint string
	// BuilderImage is the environment's builder image: with it, Code is a source package, which
	// Fission's builder builds into the deployment package (a Go function's plugin, as Fission builds
	// Go) before the function deploys.
	BuilderImage string
	// BuildTimeout (s) bounds the wait for Fission's build of a source package.
	BuildTimeout int
	// Image is the function's own image (executor container).
	Image string
	// PoolSize: warm pods of a poolmgr environment.
	PoolSize int
	// MinScale..MaxScale and TargetCPU for newdeploy and container.
	MinScale, MaxScale, TargetCPU int
	Autoscaled                    bool
	// Timeout (s) and IdleTimeout (s) of the function.
	Timeout, IdleTimeout int
	// GracePeriod (s) is the pods' terminationGracePeriodSeconds, which Fission's executor also
	// makes a preStop sleep of (utils.DrainLifecycle): a pod it stops stays Terminating, serving
	// what it still has, that long. Fission's own default is 360.
	GracePeriod int
}

// ParseSettings checks a function against what Fission takes.
func ParseSettings(fn platform.Function, workloadsDir string) (Settings, error) {
	s := Settings{Executor: Container, PoolSize: 3, Timeout: 60, GracePeriod: DefaultGracePeriod, BuildTimeout: 300}
	if err := kube.ValidateName(fn.Name); err != nil {
		return s, fmt.Errorf("name: %w", err)
	}
	keys := slices.Sorted(maps.Keys(fn.Settings))
	for _, k := range keys {
		v := fn.Settings[k]
		num := func(lo int) (int, error) {
			n, err := strconv.Atoi(v)
			if err != nil || n < lo {
				return 0, fmt.Errorf("settings.%s: %q: want a whole number ≥ %d", k, v, lo)
			}
			return n, nil
		}
		var err error
		switch k {
		case "executor":
			if v != PoolMgr && v != NewDeploy && v != Container {
				return s, fmt.Errorf("settings.executor: %q: want poolmgr, newdeploy or container", v)
			}
			s.Executor = v
		case "env_image":
			s.EnvImage = v
		case "builder_image":
			s.BuilderImage = v
		case "build_timeout":
			s.BuildTimeout, err = num(1)
		case "code_file":
			b, rerr := platform.ReadWorkloadFile(workloadsDir, v, "settings.code_file")
			if rerr != nil {
				return s, rerr
			}
			s.Code = string(b)
		case "entrypoint":
			s.Entrypoint = v
		case "image":
			s.Image = v
		case "pool_size":
			s.PoolSize, err = num(0)
		case "min_scale":
			s.MinScale, err = num(0)
			s.Autoscaled = true
		case "max_scale":
			s.MaxScale, err = num(1)
			s.Autoscaled = true
		case "target_cpu":
			s.TargetCPU, err = num(1)
		case "timeout":
			s.Timeout, err = num(1)
		case "idle_timeout":
			s.IdleTimeout, err = num(1)
		case "grace_period":
			s.GracePeriod, err = num(1)
		default:
			return s, fmt.Errorf("settings.%s: unknown setting for the fission platform (known: build_timeout, builder_image, code_file, entrypoint, env_image, executor, grace_period, idle_timeout, image, max_scale, min_scale, pool_size, target_cpu, timeout)", k)
		}
		if err != nil {
			return s, err
		}
	}
	switch {
	case s.Code != "" && s.EnvImage == "":
		return s, fmt.Errorf("settings.code_file: needs settings.env_image (the Fission environment image that loads it); or drop code_file for the workload's own environment image (Dockerfile.fission)")
	case len(s.Code) > LiteralLimit:
		return s, fmt.Errorf("settings.code_file: %d bytes, above Fission's literal package limit of %d (ArchiveLiteralSizeLimit)", len(s.Code), LiteralLimit)
	case s.BuilderImage != "" && s.EnvImage == "":
		return s, fmt.Errorf("settings.builder_image: needs settings.env_image (the environment whose builder it is)")
	case s.EnvImage != "" && s.Code == "" && fn.Language == "go" && s.BuilderImage == "":
		return s, fmt.Errorf("settings.builder_image: a Go function in Fission's Go environment is a plugin Fission builds from source in the environment's builder image (fission/environments go/builder; deploy/fission/envs.sh builds ko.local/fission/go-builder): give builder_image")
	case s.Executor == Container && s.EnvImage != "":
		return s, fmt.Errorf("settings.env_image: the container executor runs the workload's image (settings.image), not an environment: set executor poolmgr or newdeploy")
	case s.Executor == PoolMgr && (s.Autoscaled || fn.Replicas > 1):
		return s, fmt.Errorf("settings.executor: poolmgr has no replica count (its pool is pool_size warm pods, specialised on demand): use newdeploy or container for replicas and scaling")
	case s.Autoscaled && s.MaxScale < max(s.MinScale, 1):
		return s, fmt.Errorf("settings.max_scale: %d is below min_scale %d", s.MaxScale, s.MinScale)
	case s.TargetCPU > 0 && !s.Autoscaled:
		return s, fmt.Errorf("settings.target_cpu: needs min_scale and max_scale")
	case fn.Mode != "" && fn.Mode != "http":
		return s, fmt.Errorf("mode: %q: Fission runs the environment's server or the image's", fn.Mode)
	case fn.Replicas < 0:
		return s, fmt.Errorf("replicas: %d is negative", fn.Replicas)
	case fn.Concurrency > 0 && s.Executor != PoolMgr:
		// The router sends newdeploy and container requests to the Service with no admission
		// (pkg/router/resolver_fallback.go resolveDeployBacked); requestsPerPod is read for
		// poolmgr only (pkg/executor/executortype/poolmgr/gpm.go, fission v1.27.0).
		return s, fmt.Errorf("concurrency: %d: Fission's %s executor does not bound a pod's concurrency (requestsPerPod is read for poolmgr only); drop concurrency, or use settings.executor poolmgr", fn.Concurrency, s.Executor)
	}
	if s.EnvImage != "" && s.Code == "" {
		// Fission's own environment, the workload packaged for it (package.go).
		pkg, entry, err := WorkloadPackage(workloadsDir, fn.Workload, fn.Language)
		if err != nil {
			return s, err
		}
		s.Code = string(pkg)
		if s.Entrypoint == "" {
			s.Entrypoint = entry
		}
	}
	if !s.Autoscaled && s.Executor != PoolMgr {
		s.MinScale, s.MaxScale = fn.Replicas, max(fn.Replicas, 1)
	}
	return s, nil
}
