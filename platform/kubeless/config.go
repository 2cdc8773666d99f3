package kubeless

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Config is the Kubeless platform's configuration (platform.options).
type Config struct {
	kube.Common
	// EndpointHost is a node's address for the functions' NodePort
	// (empty: the first ready node's InternalIP).
	EndpointHost string
	// KubelessNamespace is where Kubeless's controller runs.
	KubelessNamespace string
	// PatchedController: the cluster runs a Kubeless controller patched to
	// read its CRD through apiextensions.k8s.io/v1, so Kubernetes 1.22 and
	// later are not refused (platform.options.patched_controller;
	// deploy/kubeless/up.sh installs one).
	PatchedController bool
	// WorkloadsDir resolves settings.code_file.
	WorkloadsDir string
	// IngressURL, when set, is the ingress controller in front of the
	// functions, as seed 003 ran Kubeless (Traefik; deploy/kubeless/up.sh with
	// KUBELESS_INGRESS=traefik): each function gets the Ingress Kubeless's
	// HTTP trigger controller makes for `kubeless trigger http create
	// --gateway traefik` (ingress.go), and is called through IngressURL with
	// its host (Endpoint, FunctionHost); its pods stay reachable directly
	// (DirectEndpoints, the study's LC mode) and its NodePort unused.
	IngressURL string
}

// ParseConfig reads the options; errors name the option.
func ParseConfig(runID string, opts map[string]any) (Config, error) {
	return parseConfig(runID, "", opts)
}

func parseConfig(runID, workloads string, opts map[string]any) (Config, error) {
	common, own, err := kube.ParseCommon(Name, runID, opts, []string{"endpoint_host", "kubeless_namespace", "patched_controller", "ingress_url"})
	if err != nil {
		return Config{}, err
	}
	c := Config{Common: common, EndpointHost: own["endpoint_host"], KubelessNamespace: "kubeless", WorkloadsDir: workloads}
	if c.IngressURL, err = platform.OptionURL("ingress_url", own["ingress_url"]); err != nil {
		return Config{}, err
	}
	if v := own["kubeless_namespace"]; v != "" {
		c.KubelessNamespace = v
	}
	switch own["patched_controller"] {
	case "", "false":
	case "true":
		c.PatchedController = true
	default:
		return c, fmt.Errorf("platform.options.patched_controller: %q is not true or false", own["patched_controller"])
	}
	return c, nil
}

var (
	runtimeName = regexp.MustCompile(`^[a-z]+[0-9][0-9.]*$`)
	handlerName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*\.[A-Za-z_][A-Za-z0-9_]*$`)
)

// Settings is a function's Kubeless configuration.
type Settings struct {
	// Image overrides the workload's image.
	Image string
	// Timeout is spec.timeout in seconds (Kubeless's default: 180).
	Timeout int
	// Runtime (e.g. python3.11, a runtime of kubeless-config's
	// runtime-images) with CodeFile (a file of the workloads directory)
	// deploys the function the way Kubeless users do: its code, handler and
	// runtime in the Function, run by Kubeless's own runtime image. Without
	// them the workload's image is the function (runtime-image mode).
	Runtime  string
	CodeFile string
	// Handler is module.function (default: the code file's name without
	// its suffix, .main).
	Handler string
	// MaxReplicas and TargetCPU (percent of the CPU request), with
	// MinReplicas (default 1), give the Function the HorizontalPodAutoscaler
	// `kubeless autoscale create --metric cpu` gives it; the patched
	// controller writes it as autoscaling/v2 (deploy/kubeless/kubeless.patch).
	MinReplicas, MaxReplicas, TargetCPU int
}

// Autoscaled is true for a function with an HPA.
func (s Settings) Autoscaled() bool { return s.MaxReplicas > 0 }

// Replicas is what the function starts with: its replicas, within the HPA's
// bounds when it has one (the HPA controller moves a count outside them to
// the bound before it reads any metric).
func (s Settings) Replicas(fn platform.Function) int {
	if !s.Autoscaled() {
		return fn.Replicas
	}
	return min(max(fn.Replicas, s.MinReplicas, 1), s.MaxReplicas)
}

// RuntimeMode is true for a function Kubeless's runtime runs.
func (s Settings) RuntimeMode() bool { return s.Runtime != "" }

// ParseSettings checks a function against what Kubeless takes.
func ParseSettings(fn platform.Function) (Settings, error) {
	var s Settings
	if err := kube.ValidateName(fn.Name); err != nil {
		return s, fmt.Errorf("name: %w", err)
	}
	for _, k := range slices.Sorted(maps.Keys(fn.Settings)) {
		v := fn.Settings[k]
		switch k {
		case "image":
			s.Image = v
		case "timeout":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return s, fmt.Errorf("settings.timeout: %q: want whole seconds ≥ 1", v)
			}
			s.Timeout = n
		case "runtime":
			if !runtimeName.MatchString(v) {
				return s, fmt.Errorf("settings.runtime: %q is not a Kubeless runtime name such as python3.11", v)
			}
			s.Runtime = v
		case "code_file":
			s.CodeFile = v
		case "handler":
			if !handlerName.MatchString(v) {
				return s, fmt.Errorf("settings.handler: %q is not module.function", v)
			}
			s.Handler = v
		case "min_replicas", "max_replicas", "target_cpu":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || (k == "target_cpu" && n > 100) {
				return s, fmt.Errorf("settings.%s: %q: want a whole number ≥ 1%s", k, v, map[bool]string{true: " and ≤ 100 (percent of the CPU request)"}[k == "target_cpu"])
			}
			switch k {
			case "min_replicas":
				s.MinReplicas = n
			case "max_replicas":
				s.MaxReplicas = n
			default:
				s.TargetCPU = n
			}
		default:
			return s, fmt.Errorf("settings.%s: unknown setting for the kubeless platform (known: code_file, handler, image, max_replicas, min_replicas, runtime, target_cpu, timeout)", k)
		}
	}
	switch {
	case s.Runtime != "" && s.CodeFile == "":
		return s, fmt.Errorf("settings.code_file: runtime %s needs the function's code", s.Runtime)
	case s.Runtime == "" && (s.CodeFile != "" || s.Handler != ""):
		return s, fmt.Errorf("settings.runtime: code_file and handler need the Kubeless runtime (e.g. python3.11)")
	case (s.MinReplicas > 0 || s.TargetCPU > 0) && s.MaxReplicas == 0, s.MaxReplicas > 0 && s.TargetCPU == 0:
		return s, fmt.Errorf("settings.max_replicas and target_cpu: Kubeless's autoscaler needs both (kubeless autoscale create --max N --metric cpu --value P)")
	case s.Autoscaled() && max(s.MinReplicas, 1) > s.MaxReplicas:
		return s, fmt.Errorf("settings.min_replicas: %d is above max_replicas %d", s.MinReplicas, s.MaxReplicas)
	case s.Autoscaled() && fn.CPUs <= 0:
		return s, fmt.Errorf("settings.target_cpu: a percentage of the CPU request, and the function has none (give it cpus)")
	case s.Runtime != "" && s.Image != "":
		return s, fmt.Errorf("settings.image: a function Kubeless's runtime %s runs has the runtime's image, not its own", s.Runtime)
	}
	if s.Runtime != "" && s.Handler == "" {
		base := filepath.Base(s.CodeFile)
		s.Handler = strings.TrimSuffix(base, filepath.Ext(base)) + ".main"
		if !handlerName.MatchString(s.Handler) {
			return s, fmt.Errorf("settings.handler: the default %q (from code_file) is not module.function; give one", s.Handler)
		}
	}
	switch {
	case fn.Mode != "" && fn.Mode != "http":
		return s, fmt.Errorf("mode: %q: a Kubeless runtime is one HTTP server per pod (the local platform's fork mode reproduces a fork per request)", fn.Mode)
	case fn.Concurrency > 0:
		return s, fmt.Errorf("concurrency: Kubeless has no per-pod concurrency limit")
	case fn.Workers > 0:
		return s, fmt.Errorf("workers: Kubeless runs one server process per pod")
	case fn.Replicas < 0:
		return s, fmt.Errorf("replicas: %d is negative", fn.Replicas)
	}
	return s, nil
}
