package openwhisk

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// AuthEnv holds the API key ("uuid:key"); never in the spec.
const AuthEnv = "FB_OPENWHISK_AUTH"

// Config is the platform's configuration (platform.options).
type Config struct {
	RunID       string
	APIHost     string
	Namespace   string
	ImagePrefix string
	ImageTag    string
	// WorkloadsDir resolves settings.code_file.
	WorkloadsDir string
	// ConcurrencyMax is the deployment's whisk.concurrency-limit.max: the
	// most concurrent activations one container may take (OpenWhisk's
	// default is 1: common/scala/src/main/resources/application.conf).
	ConcurrencyMax int
	// RecordWait bounds the wait for an activation's record after its
	// reply (platform.options.activation_record_wait, default 10 s): a real
	// OpenWhisk writes the record after collecting the logs, in a batched
	// store write, and lists activations from a view read with
	// stale=update_after, so a record read at once is usually not there.
	RecordWait time.Duration
	// ContainerFactory is the invokers' container factory (platform.options.container_factory):
	// "kubernetes" (openwhisk-deploy-kube's invoker.containerFactory.impl, the default here) or
	// "docker" (OpenWhisk's own default: ansible, standalone). Only the Docker factory pulls a Docker
	// action's image before each container (DockerContainerFactory, ExecManifest skipDockerPull):
	// there a blackbox start is kind image-pull; with the Kubernetes one the kubelet's pull policy decides.
	ContainerFactory string
	// Prewarm are the runtime kinds the invokers keep prewarmed containers of, with their memory in
	// MB (the deployment's runtimes.json stemCells; platform.options.prewarm "kind:MB,..."; default
	// openwhisk-deploy-kube's: nodejs:14 at 256 MB). GET / does not say them.
	Prewarm map[string]int
	// Deployment is how OpenWhisk is installed (platform.options.deployment), for the fingerprint: GET /
	// does not say it. "deploy-kube" (openwhisk-deploy-kube's chart, the default: controller and invokers
	// apart, Kafka between them, CouchDB) or "standalone-kcf" (upstream's standalone server with the
	// Kubernetes container factory, as deploy/openwhisk/up.sh runs it).
	Deployment string
	// DrainQuiet and DrainTimeout shape the wait after each cell for the activations OpenWhisk goes on
	// running after their callers stopped waiting (platform.options.drain_quiet, default 10 s: no more of
	// the cell's activations finished for that long; drain_timeout, default 10 min, 0s: no wait).
	DrainQuiet   time.Duration
	DrainTimeout time.Duration
	// Servers are the baseline platform's options for the servers of baseline.server, which run beside
	// OpenWhisk on its Kubernetes cluster (platform.options.servers; servers.go), OpenWhisk's image prefix
	// and tag where they name none.
	Servers map[string]any
	// Pods is where the action pods run (platform.options.pods_namespace; pods.go), for their CPU and memory;
	// nil: not sampled (OpenWhisk's API says nothing of its containers).
	Pods *PodsConfig
	// Kube is platform.kubeconfig and platform.context: the cluster of the action pods and of the servers.
	Kube kube.Options
}

// Deployments are the values of platform.options.deployment, with what the fingerprint says differs from
// openwhisk-deploy-kube.
var Deployments = map[string]string{
	"deploy-kube": "",
	"standalone-kcf": "upstream's standalone server (core/standalone, --dev-kcf): the controller and one invoker in one JVM " +
		"with the lean load balancer; no Kafka hop (in-memory queues between them); an in-memory store instead of CouchDB " +
		"(actions and activation records live in the server's heap and go when it restarts); the Kubernetes container factory " +
		"runs each action container as a pod, as deploy-kube's invoker.containerFactory.impl=kubernetes does; the API behind an " +
		"nginx configured as deploy-kube's (deploy/openwhisk/nginx.conf; Debian bookworm's nginx 1.22 for its 1.21.1)",
}

var optionKeys = []string{"api_host", "namespace", "image_prefix", "image_tag", "concurrency_max", "activation_record_wait", "container_factory", "prewarm", "deployment", "drain_quiet", "drain_timeout", "servers", "pods_namespace", "kubeconfig", "context", "prometheus_url", "cpus"}

// ParseConfig reads the options; errors name the option.
func ParseConfig(pc platform.Config) (Config, error) {
	c := Config{RunID: pc.RunID, APIHost: "https://openwhisk.local", Namespace: "guest", ImagePrefix: "faasbench/", ImageTag: "latest", WorkloadsDir: pc.WorkloadsDir, ConcurrencyMax: 1, RecordWait: 10 * time.Second,
		ContainerFactory: "kubernetes", Prewarm: map[string]int{"nodejs:14": 256}, Deployment: "deploy-kube",
		DrainQuiet: 10 * time.Second, DrainTimeout: 10 * time.Minute}
	keys := slices.Sorted(maps.Keys(pc.Options))
	for _, k := range keys {
		if k == "cpus" || k == "servers" || k == "kubeconfig" || k == "context" || slices.Contains(podsOptions, k) {
			continue // servers: read last, with the image prefix and tag; the cluster: below; the pods' options: pods.go
		}
		s, err := platform.OptionString(k, pc.Options[k])
		switch {
		case !slices.Contains(optionKeys, k):
			return c, fmt.Errorf("platform.options.%s: unknown option for the openwhisk platform (known: %s)", k, strings.Join(optionKeys[:len(optionKeys)-1], ", "))
		case err != nil:
			return c, err
		}
		switch k {
		case "api_host":
			u, err := url.Parse(s)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return c, fmt.Errorf("platform.options.api_host: %q is not an http(s) URL", s)
			}
			c.APIHost = strings.TrimRight(s, "/")
		case "namespace":
			c.Namespace = s
		case "image_prefix":
			c.ImagePrefix = s
		case "image_tag":
			c.ImageTag = s
		case "concurrency_max":
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return c, fmt.Errorf("platform.options.concurrency_max: %q is not a whole number ≥ 1 (the deployment's whisk.concurrency-limit.max)", s)
			}
			c.ConcurrencyMax = n
		case "activation_record_wait":
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 || d > 10*time.Minute {
				return c, fmt.Errorf("platform.options.activation_record_wait: %q is not a duration in (0, 10m]", s)
			}
			c.RecordWait = d
		case "drain_quiet":
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 || d > 10*time.Minute {
				return c, fmt.Errorf("platform.options.drain_quiet: %q is not a duration in (0, 10m] (how long no more of a cell's activations may finish before the next cell)", s)
			}
			c.DrainQuiet = d
		case "drain_timeout":
			d, err := time.ParseDuration(s)
			if err != nil || d < 0 || d > 2*time.Hour {
				return c, fmt.Errorf("platform.options.drain_timeout: %q is not a duration in [0, 2h] (the longest wait after a cell for its activations; 0s: none)", s)
			}
			c.DrainTimeout = d
		case "container_factory":
			if s != "kubernetes" && s != "docker" {
				return c, fmt.Errorf("platform.options.container_factory: %q: kubernetes (openwhisk-deploy-kube) or docker (OpenWhisk's ansible and standalone deployments)", s)
			}
			c.ContainerFactory = s
		case "deployment":
			if _, ok := Deployments[s]; !ok {
				return c, fmt.Errorf("platform.options.deployment: %q: deploy-kube (openwhisk-deploy-kube's chart) or standalone-kcf (upstream's standalone server with the Kubernetes container factory: deploy/openwhisk/up.sh)", s)
			}
			c.Deployment = s
		case "prewarm":
			c.Prewarm = map[string]int{}
			for _, kv := range strings.Split(s, ",") {
				kv = strings.TrimSpace(kv)
				if kv == "" {
					continue
				}
				i := strings.LastIndexByte(kv, ':')
				mb, err := strconv.Atoi(kv[i+1:])
				if i <= 0 || err != nil || mb < 1 {
					return c, fmt.Errorf("platform.options.prewarm: %q is not KIND:MB (the deployment's runtimes.json stemCells, e.g. nodejs:20:256)", kv)
				}
				c.Prewarm[kv[:i]] = mb
			}
		}
	}
	var err error
	if c.Pods, err = parsePods(pc.Options); err != nil {
		return c, err
	}
	for k, dst := range map[string]*string{"kubeconfig": &c.Kube.Kubeconfig, "context": &c.Kube.Context} {
		if v, ok := pc.Options[k]; ok {
			if *dst, err = platform.OptionString(k, v); err != nil {
				return c, err
			}
		}
	}
	c.Servers, err = serverOptions(pc.Options["servers"], c)
	return c, err
}

// CheckLimits refuses what the deployment's limits refuse: a concurrency
// above its concurrency-limit max (the controller's IntraConcurrencyLimit
// refuses the action). Errors name the field.
func (c Config) CheckLimits(fn platform.Function) error {
	if fn.Concurrency > c.ConcurrencyMax {
		return fmt.Errorf("concurrency: %d: this OpenWhisk allows at most %d concurrent activations per container (whisk.concurrency-limit.max; OpenWhisk's default is 1: application.conf); set platform.options.concurrency_max to your deployment's value",
			fn.Concurrency, c.ConcurrencyMax)
	}
	return nil
}

// Settings is a function's OpenWhisk configuration.
type Settings struct {
	Image    string
	Kind     string // a native runtime (nodejs:20, java:8, python:3); empty: blackbox
	CodeFile string
	Main     string
	Timeout  time.Duration
}

// ParseSettings checks a function against what OpenWhisk takes.
func ParseSettings(fn platform.Function) (Settings, error) {
	s := Settings{Timeout: time.Minute}
	if fn.Name == "" || strings.ContainsAny(fn.Name, "/ ") {
		return s, fmt.Errorf("name: %q cannot name an action", fn.Name)
	}
	for k, v := range fn.Settings {
		switch k {
		case "image":
			s.Image = v
		case "kind":
			s.Kind = v
		case "code_file":
			s.CodeFile = v
		case "main":
			s.Main = v
		case "timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d < 100*time.Millisecond {
				return s, fmt.Errorf("settings.timeout: %q: want a duration of at least 100ms", v)
			}
			s.Timeout = d
		default:
			return s, fmt.Errorf("settings.%s: unknown setting for the openwhisk platform (known: code_file, image, kind, main, timeout)", k)
		}
	}
	switch {
	case fn.Replicas > 1:
		return s, fmt.Errorf("replicas: OpenWhisk has no replica count (its invokers start containers as load needs); use concurrency and memory_mb, or another platform for fixed replicas")
	case fn.Mode != "" && fn.Mode != "http":
		return s, fmt.Errorf("mode: %q: OpenWhisk runs the action's own runtime (the action proxy)", fn.Mode)
	case fn.Workers > 1:
		return s, fmt.Errorf("workers: an OpenWhisk action container runs one action process")
	case s.Kind != "" && s.CodeFile == "":
		return s, fmt.Errorf("settings.code_file: kind %s needs the action's code", s.Kind)
	case s.Kind == "" && s.CodeFile != "":
		return s, fmt.Errorf("settings.kind: code_file needs the runtime kind (e.g. nodejs:20)")
	}
	return s, nil
}
