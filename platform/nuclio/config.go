package nuclio

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/workloads"
)

// Config is the Nuclio platform's configuration (platform.options).
type Config struct {
	kube.Common
	// EndpointHost is a node's address for the functions' NodePort
	// (empty: the first ready node's InternalIP).
	EndpointHost string
	// NuclioNamespace is where Nuclio's controller and dashboard run.
	NuclioNamespace string
	// DashboardURL, when set, is Nuclio's dashboard: functions are
	// created, changed and deleted through its HTTP API instead of the API
	// server.
	DashboardURL string
	// DLXURL is Nuclio's DLX (e.g. http://nuclio-dlx.nuclio.svc.cluster.local:8080):
	// a function with min_replicas 0 is made cold by Nuclio's own scale to
	// zero, and the cold request goes there with X-Nuclio-Target.
	DLXURL string
	// ZeroTimeout bounds the wait for Nuclio's autoscaler to scale an idle
	// function to zero (its window and interval; default 5 minutes).
	ZeroTimeout time.Duration
	// ZeroNow: a function with min_replicas 0 is made cold by what Nuclio's
	// autoscaler does once it decides (scale_to_zero: now), at once,
	// instead of waiting for its decision (scale_to_zero: autoscaler, the
	// default).
	ZeroNow bool
	// IngressURL, when set, is the ingress controller in front of the functions
	// (deploy/nuclio/up.sh with NUCLIO_INGRESS=traefik): each function's HTTP trigger
	// asks for an ingress with the platform's default host template, as Nuclio's
	// dashboard UI does, and is called through IngressURL with that host (Endpoint,
	// FunctionHost). Needs DashboardURL: the dashboard renders the host, the
	// controller does not.
	IngressURL string
}

// ParseConfig reads the options; errors name the option.
func ParseConfig(runID string, opts map[string]any) (Config, error) {
	common, own, err := kube.ParseCommon(Name, runID, opts, []string{"endpoint_host", "nuclio_namespace", "dashboard_url", "dlx_url", "scale_to_zero_timeout", "scale_to_zero", "ingress_url"})
	if err != nil {
		return Config{}, err
	}
	c := Config{Common: common, EndpointHost: own["endpoint_host"], NuclioNamespace: "nuclio", DashboardURL: own["dashboard_url"],
		DLXURL: own["dlx_url"], IngressURL: strings.TrimRight(own["ingress_url"], "/"), ZeroTimeout: 5 * time.Minute}
	for _, k := range []string{"dashboard_url", "dlx_url", "ingress_url"} {
		if _, err := platform.OptionURL(k, own[k]); err != nil {
			return Config{}, err
		}
	}
	if c.IngressURL != "" && c.DashboardURL == "" {
		return Config{}, fmt.Errorf("platform.options.ingress_url needs platform.options.dashboard_url: Nuclio's dashboard renders a function's ingress host from the platform's template, its controller does not")
	}
	if v := own["scale_to_zero_timeout"]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return Config{}, fmt.Errorf("platform.options.scale_to_zero_timeout: %q is not a positive duration", v)
		}
		c.ZeroTimeout = d
	}
	switch v := own["scale_to_zero"]; v {
	case "", "autoscaler":
	case "now":
		c.ZeroNow = true
	default:
		return Config{}, fmt.Errorf("platform.options.scale_to_zero: %q is neither autoscaler (wait for Nuclio's autoscaler to scale an idle function to zero) nor now (do what it does then, at once)", v)
	}
	if v := own["nuclio_namespace"]; v != "" {
		c.NuclioNamespace = v
	}
	return c, nil
}

// Settings is a function's Nuclio configuration.
type Settings struct {
	Image, Runtime, Handler string
	// MinReplicas..MaxReplicas with TargetCPU: Nuclio's autoscaling (an
	// HPA on CPU); otherwise replicas are fixed.
	MinReplicas, MaxReplicas, TargetCPU int
	Autoscaled                          bool
	// MaxBody is the HTTP trigger's maxRequestBodySize in bytes (Nuclio's
	// default, 4 MiB, refuses larger bodies (400 "Error when parsing request" from its fasthttp, or the connection reset): seed 000's payload sweep
	// goes to 16 MiB); 0 leaves Nuclio's default.
	MaxBody int
	// WorkerTimeoutMs is the HTTP trigger's workerAvailabilityTimeoutMilliseconds:
	// how long a request waits for a free worker before the trigger answers
	// 503 (Nuclio's default 10 000: pkg/processor/trigger/trigger.go); 0
	// leaves the default.
	WorkerTimeoutMs int
}

// DefaultWorkerTimeoutMs is Nuclio's default workerAvailabilityTimeoutMilliseconds.
const DefaultWorkerTimeoutMs = 10_000

// compiled are the Nuclio runtimes and handlers of the languages faasbench
// ships no Nuclio image for (workloads.NuclioRuntimes has the others): a
// function in them needs settings.image.
var compiled = map[string]workloads.NuclioRuntime{"java": {Runtime: "java", Handler: "Handler"}}

// ParseSettings checks a function against what Nuclio takes.
func ParseSettings(fn platform.Function) (Settings, error) {
	var s Settings
	rt, shipped := workloads.NuclioRuntimes[fn.Language]
	if !shipped {
		rt = compiled[fn.Language]
	}
	s.Runtime, s.Handler = rt.Runtime, rt.Handler
	if err := kube.ValidateName(fn.Name); err != nil {
		return s, fmt.Errorf("name: %w", err)
	}
	keys := slices.Sorted(maps.Keys(fn.Settings))
	for _, k := range keys {
		v := fn.Settings[k]
		num := func(lo, hi int) (int, error) {
			n, err := strconv.Atoi(v)
			if err != nil || n < lo || n > hi {
				return 0, fmt.Errorf("settings.%s: %q: want a whole number in [%d, %d]", k, v, lo, hi)
			}
			return n, nil
		}
		var err error
		switch k {
		case "image":
			s.Image = v
		case "runtime":
			s.Runtime = v
		case "handler":
			s.Handler = v
		case "min_replicas":
			s.MinReplicas, err = num(0, 1000)
			s.Autoscaled = true
		case "max_replicas":
			s.MaxReplicas, err = num(1, 1000)
			s.Autoscaled = true
		case "target_cpu":
			s.TargetCPU, err = num(1, 100)
		case "max_request_body_size":
			s.MaxBody, err = num(1, 1<<30)
		case "worker_timeout_ms":
			s.WorkerTimeoutMs, err = num(1, 3_600_000)
		default:
			return s, fmt.Errorf("settings.%s: unknown setting for the nuclio platform (known: handler, image, max_replicas, max_request_body_size, min_replicas, runtime, target_cpu, worker_timeout_ms)", k)
		}
		if err != nil {
			return s, err
		}
	}
	switch {
	case s.Runtime == "":
		return s, fmt.Errorf("settings.runtime: no Nuclio runtime for language %q: give one", fn.Language)
	case s.Autoscaled && s.MaxReplicas == 0:
		return s, fmt.Errorf("settings.max_replicas: autoscaling needs a maximum")
	case s.Autoscaled && s.MaxReplicas < s.MinReplicas:
		return s, fmt.Errorf("settings.max_replicas: %d is below min_replicas %d", s.MaxReplicas, s.MinReplicas)
	case s.TargetCPU > 0 && !s.Autoscaled:
		return s, fmt.Errorf("settings.target_cpu: needs min_replicas and max_replicas (fixed replicas do not autoscale)")
	case fn.Mode != "" && fn.Mode != "http":
		return s, fmt.Errorf("mode: %q: Nuclio's processor runs the handler in its workers", fn.Mode)
	case fn.Concurrency > 0:
		return s, fmt.Errorf("concurrency: Nuclio bounds a pod's concurrency by its workers: set workers (the HTTP trigger's numWorkers)")
	case fn.Replicas < 0:
		return s, fmt.Errorf("replicas: %d is negative", fn.Replicas)
	case !shipped && s.Image == "":
		return s, fmt.Errorf("settings.image: faasbench ships Nuclio images (Dockerfile.nuclio) for cpp, node and python, not for %s: Nuclio's %s runtime builds the handler inside Nuclio's onbuild image against Nuclio's SDK; give an image built so (and settings.handler if not %q)", fn.Language, s.Runtime, s.Handler)
	}
	return s, nil
}
