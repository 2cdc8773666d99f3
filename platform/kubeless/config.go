package kubeless

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

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
	// later are not refused (platform.options.patched_controller).
	PatchedController bool
}

// ParseConfig reads the options; errors name the option.
func ParseConfig(runID string, opts map[string]any) (Config, error) {
	common, own, err := kube.ParseCommon(Name, runID, opts, []string{"endpoint_host", "kubeless_namespace", "patched_controller"})
	if err != nil {
		return Config{}, err
	}
	c := Config{Common: common, EndpointHost: own["endpoint_host"], KubelessNamespace: "kubeless"}
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

// Settings is a function's Kubeless configuration.
type Settings struct {
	// Image overrides the workload's image.
	Image string
	// Timeout is spec.timeout in seconds (Kubeless's default: 180).
	Timeout int
}

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
		case "min_replicas", "max_replicas", "target_cpu":
			return s, fmt.Errorf("settings.%s: Kubeless autoscales through autoscaling/v2beta1 HorizontalPodAutoscalers, which Kubernetes removed in 1.25: Kubeless functions have fixed replicas here", k)
		default:
			return s, fmt.Errorf("settings.%s: unknown setting for the kubeless platform (known: image, timeout)", k)
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
