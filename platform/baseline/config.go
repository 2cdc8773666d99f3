package baseline

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Config is the baseline platform's configuration, from the spec's
// platform section (platform.Config.Options).
type Config struct {
	kube.Common
	// ServiceType: NodePort (seed 004's baseline), ClusterIP (for load
	// from inside the cluster) or LoadBalancer.
	ServiceType corev1.ServiceType
	// EndpointHost is the address of a node for NodePort services (empty:
	// the first ready node's InternalIP).
	EndpointHost string
}

// ParseConfig reads the platform options. Errors name the option.
func ParseConfig(runID string, opts map[string]any) (Config, error) {
	common, own, err := kube.ParseCommon(Name, runID, opts, []string{"service_type", "endpoint_host"})
	if err != nil {
		return Config{}, err
	}
	c := Config{Common: common, ServiceType: corev1.ServiceTypeNodePort, EndpointHost: own["endpoint_host"]}
	switch t := corev1.ServiceType(own["service_type"]); t {
	case corev1.ServiceTypeNodePort, corev1.ServiceTypeClusterIP, corev1.ServiceTypeLoadBalancer:
		c.ServiceType = t
	case "":
	default:
		return c, fmt.Errorf("platform.options.service_type: %q is not NodePort, ClusterIP or LoadBalancer", t)
	}
	return c, nil
}

// Settings is what the baseline reads of a function's settings.
type Settings struct {
	// Image overrides the image name.
	Image string
	// HPAMax > 0 adds a HorizontalPodAutoscaler from the function's
	// replicas to HPAMax on CPU utilisation HPACPU (percent of the request).
	HPAMax int
	HPACPU int
}

// ParseSettings checks a function against what the baseline can run.
func ParseSettings(fn platform.Function) (Settings, error) {
	s := Settings{HPACPU: 80}
	if err := kube.ValidateName(fn.Name); err != nil {
		return s, fmt.Errorf("name: %w", err)
	}
	for k, v := range fn.Settings {
		var err error
		switch k {
		case "image":
			s.Image = v
		case "hpa_max":
			s.HPAMax, err = strconv.Atoi(v)
			if err == nil && s.HPAMax < 1 {
				err = fmt.Errorf("below 1")
			}
		case "hpa_cpu":
			s.HPACPU, err = strconv.Atoi(v)
			if err == nil && (s.HPACPU < 1 || s.HPACPU > 1000) {
				err = fmt.Errorf("not a percentage between 1 and 1000")
			}
		default:
			return s, fmt.Errorf("settings.%s: unknown setting for the baseline platform (known: %s)", k, strings.Join([]string{"image", "hpa_max", "hpa_cpu"}, ", "))
		}
		if err != nil {
			return s, fmt.Errorf("settings.%s: %q: %w", k, v, err)
		}
	}
	switch {
	case fn.Mode != "" && fn.Mode != "http":
		return s, fmt.Errorf("mode: the baseline runs the image's own server (mode http); %q is not available (the C++ images already fork per request)", fn.Mode)
	case fn.Concurrency > 0:
		return s, fmt.Errorf("concurrency: the baseline has no per-instance request limit (a plain Service spreads connections)")
	case fn.Replicas < 0:
		return s, fmt.Errorf("replicas: %d is negative", fn.Replicas)
	case s.HPAMax > 0 && fn.CPUs <= 0:
		return s, fmt.Errorf("settings.hpa_max: a CPU autoscaler needs cpus (the CPU request its target is a percentage of)")
	case s.HPAMax > 0 && s.HPAMax < max(fn.Replicas, 1):
		return s, fmt.Errorf("settings.hpa_max: %d is below replicas %d", s.HPAMax, fn.Replicas)
	}
	return s, nil
}
