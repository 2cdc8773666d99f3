package baseline

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Config is the baseline platform's configuration, from the spec's
// platform section (platform.Config.Options).
type Config struct {
	RunID string
	Kube  kube.Options
	// ImagePrefix and ImageTag name a function's image:
	// <prefix><workload>-<language>:<tag> (the names the Dockerfiles under
	// workloads/ are built with: docker build -t faasbench/prime-go ...).
	ImagePrefix string
	ImageTag    string
	PullPolicy  corev1.PullPolicy
	// ServiceType: NodePort (seed 004's baseline), ClusterIP (for load
	// from inside the cluster) or LoadBalancer.
	ServiceType corev1.ServiceType
	// EndpointHost is the address of a node for NodePort services (empty:
	// the first ready node's InternalIP).
	EndpointHost string
	// ReadyTimeout bounds every wait for replicas.
	ReadyTimeout time.Duration
	// PrometheusURL: read per-pod CPU and memory from Prometheus.
	PrometheusURL string
}

// options are the keys Config reads; any other is an error.
var options = []string{"kubeconfig", "context", "namespace", "image_prefix", "image_tag", "pull_policy", "service_type",
	"endpoint_host", "ready_timeout", "prometheus_url", "cpus"}

// ParseConfig reads the platform options. Errors name the option.
func ParseConfig(runID string, opts map[string]any) (Config, error) {
	c := Config{RunID: runID, ImagePrefix: "faasbench/", ImageTag: "latest", PullPolicy: corev1.PullIfNotPresent,
		ServiceType: corev1.ServiceTypeNodePort, ReadyTimeout: 5 * time.Minute}
	str := func(k string) (string, error) {
		v, ok := opts[k]
		if !ok || v == nil {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("platform.options.%s: %v is not a string", k, v)
		}
		return s, nil
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !contains(options, k) {
			return c, fmt.Errorf("platform.options.%s: unknown option for the baseline platform (known: %s)", k, strings.Join(options, ", "))
		}
		if k == "cpus" { // the local platform's pinning, passed to every platform
			continue
		}
		s, err := str(k)
		if err != nil {
			return c, err
		}
		switch k {
		case "kubeconfig":
			c.Kube.Kubeconfig = s
		case "context":
			c.Kube.Context = s
		case "namespace":
			if err := kube.ValidateName(s); s != "" && err != nil {
				return c, fmt.Errorf("platform.options.namespace: %q is not a namespace name", s)
			}
			c.Kube.Namespace = s
		case "image_prefix":
			c.ImagePrefix = s
		case "image_tag":
			if s != "" {
				c.ImageTag = s
			}
		case "pull_policy":
			switch p := corev1.PullPolicy(s); p {
			case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
				c.PullPolicy = p
			case "":
			default:
				return c, fmt.Errorf("platform.options.pull_policy: %q is not Always, IfNotPresent or Never", s)
			}
		case "service_type":
			switch t := corev1.ServiceType(s); t {
			case corev1.ServiceTypeNodePort, corev1.ServiceTypeClusterIP, corev1.ServiceTypeLoadBalancer:
				c.ServiceType = t
			case "":
			default:
				return c, fmt.Errorf("platform.options.service_type: %q is not NodePort, ClusterIP or LoadBalancer", s)
			}
		case "endpoint_host":
			c.EndpointHost = s
		case "ready_timeout":
			if s == "" {
				continue
			}
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return c, fmt.Errorf("platform.options.ready_timeout: %q is not a positive duration", s)
			}
			c.ReadyTimeout = d
		case "prometheus_url":
			c.PrometheusURL = s
		}
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

var settingKeys = []string{"image", "hpa_max", "hpa_cpu"}

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
			return s, fmt.Errorf("settings.%s: unknown setting for the baseline platform (known: %s)", k, strings.Join(settingKeys, ", "))
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

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
