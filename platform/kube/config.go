package kube

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/faasbench/faasbench/platform"
	corev1 "k8s.io/api/core/v1"
)

// Common is the configuration every Kubernetes platform reads from the
// spec's platform section (platform.Config.Options).
type Common struct {
	RunID string
	Kube  Options
	// ImagePrefix and ImageTag name a function's image:
	// <prefix><workload>-<language>:<tag> (the names the Dockerfiles under
	// workloads/ are built with: docker build -t faasbench/prime-go ...).
	ImagePrefix string
	ImageTag    string
	PullPolicy  corev1.PullPolicy
	// ReadyTimeout bounds every wait for replicas.
	ReadyTimeout time.Duration
	// PrometheusURL: read per-pod CPU and memory from Prometheus.
	PrometheusURL string
	// ImageServiceEndpoint is the node's CRI socket (unix:///...), for the
	// image-pull cold start (coldstart.evict_image); default
	// $CONTAINER_RUNTIME_ENDPOINT, as crictl's.
	ImageServiceEndpoint string
}

// commonKeys are the options Common reads ("cpus" is the local platform's
// pinning, which the CLI passes to every platform).
var commonKeys = []string{"kubeconfig", "context", "namespace", "image_prefix", "image_tag", "pull_policy", "ready_timeout", "prometheus_url", "image_service_endpoint", "cpus"}

// ParseCommon reads the common options and returns the platform's own
// (those named in own) as strings. Any other key is an error naming it.
func ParseCommon(platformName, runID string, opts map[string]any, own []string) (Common, map[string]string, error) {
	c := Common{RunID: runID, ImagePrefix: "faasbench/", ImageTag: "latest", PullPolicy: corev1.PullIfNotPresent, ReadyTimeout: 5 * time.Minute}
	rest := map[string]string{}
	keys := slices.Sorted(maps.Keys(opts))
	for _, k := range keys {
		if !slices.Contains(commonKeys, k) && !slices.Contains(own, k) {
			known := append(append([]string{}, commonKeys[:len(commonKeys)-1]...), own...)
			return c, nil, fmt.Errorf("platform.options.%s: unknown option for the %s platform (known: %s)", k, platformName, strings.Join(known, ", "))
		}
		if k == "cpus" || opts[k] == nil {
			continue
		}
		s, err := platform.OptionString(k, opts[k])
		if err != nil {
			return c, nil, err
		}
		switch k {
		case "kubeconfig":
			c.Kube.Kubeconfig = s
		case "context":
			c.Kube.Context = s
		case "namespace":
			if s != "" && ValidateName(s) != nil {
				return c, nil, fmt.Errorf("platform.options.namespace: %q is not a namespace name", s)
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
				return c, nil, fmt.Errorf("platform.options.pull_policy: %q is not Always, IfNotPresent or Never", s)
			}
		case "ready_timeout":
			if s == "" {
				continue
			}
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return c, nil, fmt.Errorf("platform.options.ready_timeout: %q is not a positive duration", s)
			}
			c.ReadyTimeout = d
		case "prometheus_url":
			c.PrometheusURL = s
		case "image_service_endpoint":
			c.ImageServiceEndpoint = s
		default:
			rest[k] = s
		}
	}
	return c, rest, nil
}

// RunLabel is the run id as a label value.
func (c Common) RunLabel() string { return LabelValue(c.RunID) }

// Image is the image a function runs (override: a function's image setting).
func (c Common) Image(workload, language, override string) string {
	if override != "" {
		return override
	}
	return fmt.Sprintf("%s%s-%s:%s", c.ImagePrefix, workload, language, c.ImageTag)
}
