// Package openwhisk deploys functions as Apache OpenWhisk actions through
// its REST API (Docker "blackbox" actions running the workload's image, or
// a native runtime kind with code), as web actions with raw HTTP, and reads
// the activation records (initTime, waitTime) as the platform's evidence
// of cold starts. OpenWhisk has no replica count: its invokers run
// containers as load needs, within the action's memory and concurrency
// limits.
package openwhisk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/httpapi"
	"github.com/faasbench/faasbench/platform/kube"
)

// Name is the registry name.
const Name = "openwhisk"

// AuthEnv holds the API key ("uuid:key"); never in the spec.
const AuthEnv = "FB_OPENWHISK_AUTH"

// Annotations faasbench puts on its actions, so leftovers can be found.
const (
	AnnRunID    = "faasbench-run-id"
	AnnFunction = "faasbench-function"
)

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
}

var optionKeys = []string{"api_host", "namespace", "image_prefix", "image_tag", "concurrency_max", "activation_record_wait", "container_factory", "prewarm", "cpus"}

// ParseConfig reads the options; errors name the option.
func ParseConfig(pc platform.Config) (Config, error) {
	c := Config{RunID: pc.RunID, APIHost: "https://openwhisk.local", Namespace: "guest", ImagePrefix: "faasbench/", ImageTag: "latest", WorkloadsDir: pc.WorkloadsDir, ConcurrencyMax: 1, RecordWait: 10 * time.Second,
		ContainerFactory: "kubernetes", Prewarm: map[string]int{"nodejs:14": 256}}
	keys := slices.Sorted(maps.Keys(pc.Options))
	for _, k := range keys {
		if k == "cpus" {
			continue
		}
		s, ok := pc.Options[k].(string)
		switch {
		case !slices.Contains(optionKeys, k):
			return c, fmt.Errorf("platform.options.%s: unknown option for the openwhisk platform (known: %s)", k, strings.Join(optionKeys[:len(optionKeys)-1], ", "))
		case !ok:
			return c, fmt.Errorf("platform.options.%s: %v is not a string", k, pc.Options[k])
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
		case "container_factory":
			if s != "kubernetes" && s != "docker" {
				return c, fmt.Errorf("platform.options.container_factory: %q: kubernetes (openwhisk-deploy-kube) or docker (OpenWhisk's ansible and standalone deployments)", s)
			}
			c.ContainerFactory = s
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
	return c, nil
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

// Platform deploys OpenWhisk actions.
type Platform struct {
	cfg Config
	c   *Client

	actions kube.Functions[Action]
	// Warnings: what the run's record should say (a Docker action's pulls).
	kube.WarningList
	// waits are how long the activation records took to appear.
	waits recordWaits
	// deployedAt: action name → when Deploy began (Explain reads its records from then).
	deployedAt sync.Map
}

var (
	_ platform.Platform         = (*Platform)(nil)
	_ platform.ColdStarter      = (*Platform)(nil)
	_ platform.Explainer        = (*Platform)(nil)
	_ platform.Fingerprinter    = (*Platform)(nil)
	_ platform.NotReadyReporter = (*Platform)(nil)
	_ platform.LoadChecker      = (*Platform)(nil)
)

// New reads the options and the API key from $FB_OPENWHISK_AUTH.
func New(_ context.Context, pc platform.Config) (*Platform, error) {
	cfg, err := ParseConfig(pc)
	if err != nil {
		return nil, err
	}
	auth := os.Getenv(AuthEnv)
	if auth == "" || !strings.Contains(auth, ":") {
		return nil, fmt.Errorf("%s must hold the API key as uuid:key (wsk property get --auth)", AuthEnv)
	}
	return Open(cfg, auth), nil
}

// Open is New with a parsed configuration and key.
func Open(cfg Config, auth string) *Platform {
	return &Platform{cfg: cfg,
		c: &Client{APIHost: cfg.APIHost, Namespace: cfg.Namespace, Auth: auth, HTTP: &http.Client{Timeout: 70 * time.Second}}}
}

// Name implements platform.Platform.
func (p *Platform) Name() string { return Name }

// Action is the PUT body for fn: a web action with raw HTTP (the body
// reaches the action unparsed), final parameters, the limits from the
// function, env as init parameters, and faasbench's annotations.
func (c Config) Action(fn platform.Function, s Settings) (Action, error) {
	a := Action{
		Limits: &Limits{Timeout: int(s.Timeout / time.Millisecond), Memory: int(fn.MemoryMB), Concurrency: fn.Concurrency},
		Annotations: []KeyValue{{Key: "web-export", Value: true}, {Key: "raw-http", Value: true}, {Key: "final", Value: true},
			{Key: AnnRunID, Value: kube.LabelValue(c.RunID)}, {Key: AnnFunction, Value: fn.Name}},
	}
	if s.Kind != "" {
		code, err := platform.ReadWorkloadFile(c.WorkloadsDir, s.CodeFile, "settings.code_file")
		if err != nil {
			return a, err
		}
		a.Exec = &Exec{Kind: s.Kind, Code: string(code), Main: s.Main}
	} else {
		img := s.Image
		if img == "" {
			img = fmt.Sprintf("%s%s-%s-openwhisk:%s", c.ImagePrefix, fn.Workload, fn.Language, c.ImageTag) // workloads/*/*/Dockerfile.openwhisk
		}
		a.Exec = &Exec{Kind: "blackbox", Image: img}
		a.Annotations = append(a.Annotations, KeyValue{Key: "exec", Value: "blackbox"})
	}
	keys := slices.Sorted(maps.Keys(fn.Env))
	a.Parameters = append(a.Parameters, KeyValue{Key: "FB_FUNCTION_NAME", Value: fn.Name, Init: true})
	for _, k := range keys {
		a.Parameters = append(a.Parameters, KeyValue{Key: k, Value: fn.Env[k], Init: true})
	}
	return a, nil
}

// Deploy implements platform.Platform: PUT the action (overwrite).
func (p *Platform) Deploy(ctx context.Context, fn platform.Function) error {
	p.deployedAt.Store(fn.Name, time.Now())
	s, err := ParseSettings(fn)
	if err == nil {
		err = p.cfg.CheckLimits(fn)
	}
	if err != nil {
		return fmt.Errorf("function %s: %w: %w", fn.Name, platform.ErrRefused, err)
	}
	a, err := p.cfg.Action(fn, s)
	if err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
	}
	if fn.Concurrency == 0 {
		p.Warn(fmt.Sprintf("function %s: concurrency 0: OpenWhisk gives the action its default intra-container concurrency (1 unless the deployment's concurrency-limit std says otherwise), where faasbench's 0 means no limit elsewhere", fn.Name))
	}
	if a.Exec.Kind == "blackbox" && p.cfg.ContainerFactory == "docker" {
		latest := ""
		if latestTag(a.Exec.Image) {
			latest = "; with the tag latest a failed pull fails the activation, where another tag lets a local image serve"
		}
		p.Warn(fmt.Sprintf("function %s: a Docker action: OpenWhisk's Docker container factory pulls %s on every container creation, so each cold start includes a pull (kind image-pull)%s (core/invoker/.../docker/DockerContainer.scala)",
			fn.Name, a.Exec.Image, latest))
	}
	old, err := p.c.GetAction(ctx, fn.Name)
	switch {
	case err == nil && old.Annotation(AnnFunction) != fn.Name:
		return fmt.Errorf("openwhisk action %s/%s exists and was not made by faasbench: choose another function name or namespace", p.cfg.Namespace, fn.Name)
	case err != nil && !httpapi.IsStatus(err, http.StatusNotFound):
		return fmt.Errorf("deploy %s: %w", fn.Name, err)
	}
	if _, err := p.c.PutAction(ctx, fn.Name, a); err != nil {
		if httpapi.IsStatus(err, http.StatusBadRequest) {
			// The controller refused the action as the spec gave it (a memory outside the namespace's
			// limits: "memory size 1024 MB exceeds allowed threshold of 512 MB"): the spec's fault.
			return fmt.Errorf("deploy %s: %w: %w", fn.Name, platform.ErrRefused, err)
		}
		return fmt.Errorf("deploy %s: %w", fn.Name, err)
	}
	p.actions.Put(fn.Name, a)
	return nil
}

// Scale implements platform.Platform: OpenWhisk has no replica count.
func (p *Platform) Scale(_ context.Context, name string, replicas int) error {
	if replicas <= 1 {
		return nil
	}
	return fmt.Errorf("scale %s to %d: OpenWhisk has no replica count (its invokers start containers as load needs)", name, replicas)
}

// CheckLoad implements platform.LoadChecker, before anything is deployed: the API host must be
// OpenWhisk's and answer, and the key must be one it takes (checkAPI: refused, exit 2, in OpenWhisk's
// words); then the namespace's limits (GET / on the API host: actions_per_minute, concurrent_actions;
// deploy-kube's defaults are 60 and 30) against the spec's load. OpenWhisk answers an invocation over
// them 429 (class http-429): measuring that throttle can be the point, so the run goes on, warned in
// OpenWhisk's own numbers.
func (p *Platform) CheckLoad(ctx context.Context, l platform.LoadShape) error {
	info, err := p.checkAPI(ctx)
	if err != nil {
		return err
	}
	lim, _ := info["limits"].(map[string]any)
	perMinute, _ := lim["actions_per_minute"].(float64)
	concurrent, _ := lim["concurrent_actions"].(float64)
	if lim == nil {
		p.Warn(fmt.Sprintf("OpenWhisk at %s says no limits in GET /: a load over the namespace's is answered 429 (class http-429)", p.cfg.APIHost))
	}
	if concurrent > 0 && float64(l.Concurrency) > concurrent {
		p.Warn(fmt.Sprintf("load.concurrency %d is over this OpenWhisk's concurrent_actions %.0f per namespace: the invocations over it are answered 429 (class http-429)", l.Concurrency, concurrent))
	}
	if perMinute > 0 && l.Rate*60 > perMinute {
		p.Warn(fmt.Sprintf("load.rate %g req/s is %.0f invocations a minute, over this OpenWhisk's actions_per_minute %.0f per namespace: the invocations over it are answered 429 (class http-429)", l.Rate, l.Rate*60, perMinute))
	}
	if perMinute > 0 && l.Concurrency > 0 {
		p.Warn(fmt.Sprintf("this OpenWhisk allows %.0f invocations a minute per namespace (actions_per_minute): a closed loop faster than %.2f req/s in all is answered 429 past it (class http-429)", perMinute, perMinute/60))
	}
	return nil
}

// checkAPI asks the API host what it is (GET /: the controller's info route, which takes no key) and
// whether it takes the key (one action listed): a controller that is down or answers 503 ("The server
// is currently unavailable ...": overloaded, or shutting down), a host that is not OpenWhisk's API, a
// key it refuses ("The supplied authentication is invalid") or a namespace the key may not use would
// otherwise show as every deploy failing. Each is refused in one sentence with OpenWhisk's own words.
func (p *Platform) checkAPI(ctx context.Context) (map[string]any, error) {
	info, err := p.c.Info(ctx)
	if err != nil {
		var se *httpapi.StatusError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%w: platform.options.api_host: OpenWhisk's controller at %s answered GET / with HTTP %d: %s; every deploy and invocation goes through it: check that the controller runs (kubectl get pods -l name=owdev-controller) and that api_host is its address from where faasbench runs",
				platform.ErrRefused, p.cfg.APIHost, se.Code, owWords(se.Body))
		}
		return nil, fmt.Errorf("%w: platform.options.api_host: OpenWhisk's API at %s did not answer GET / (%v): check that the controller runs and that api_host is its address from where faasbench runs",
			platform.ErrRefused, p.cfg.APIHost, errors.Unwrap(err))
	}
	if _, ok := info["runtimes"]; !ok {
		return nil, fmt.Errorf("%w: platform.options.api_host: %s answered GET / without OpenWhisk's runtimes (not the API host of an OpenWhisk controller)", platform.ErrRefused, p.cfg.APIHost)
	}
	if err := p.c.CheckKey(ctx); err != nil {
		var se *httpapi.StatusError
		if !errors.As(err, &se) {
			return nil, fmt.Errorf("%w: OpenWhisk at %s: %v", platform.ErrRefused, p.cfg.APIHost, err)
		}
		switch se.Code {
		case http.StatusUnauthorized:
			return nil, fmt.Errorf("%w: %s: OpenWhisk refused the key (HTTP 401: %s): set it to the API key of the namespace (uuid:key, wsk property get --auth)", platform.ErrRefused, AuthEnv, owWords(se.Body))
		case http.StatusForbidden:
			return nil, fmt.Errorf("%w: platform.options.namespace: OpenWhisk refused the key in namespace %s (HTTP 403: %s)", platform.ErrRefused, p.cfg.Namespace, owWords(se.Body))
		default:
			return nil, fmt.Errorf("%w: OpenWhisk at %s answered listing namespace %s's actions with HTTP %d: %s", platform.ErrRefused, p.cfg.APIHost, p.cfg.Namespace, se.Code, owWords(se.Body))
		}
	}
	return info, nil
}

// owWords is the "error" of an OpenWhisk error reply ({"error": ..., "code": transaction id}), or the
// reply itself (an ingress's own page) cut to a line.
func owWords(body string) string {
	var e struct {
		Error string `json:"error"`
		Code  string `json:"code"`
	}
	if json.Unmarshal([]byte(body), &e) == nil && e.Error != "" {
		if e.Code != "" {
			return fmt.Sprintf("%q (transaction %s)", e.Error, e.Code)
		}
		return fmt.Sprintf("%q", e.Error)
	}
	body = strings.Join(strings.Fields(body), " ")
	if len(body) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(body[cut]) { // not inside a character
			cut--
		}
		body = body[:cut] + "…"
	}
	return fmt.Sprintf("%q", body)
}

// NotReadyStatus implements platform.NotReadyReporter: a web action (or a
// blocking invocation) whose result is not there when the controller's
// wait ends (60 s, queue and cold start included) is answered 202 with
// the activation's id, "Response not yet ready" (core/controller/.../
// WebActions.scala, Actions.scala): the request was accepted, its result
// never came back, so it is no success.
func (p *Platform) NotReadyStatus() int { return http.StatusAccepted }

// Endpoint implements platform.Platform: the web action's URL (no API key
// needed; blocking invocations need it and are for Invoke).
func (p *Platform) Endpoint(_ context.Context, name string) (string, error) {
	return p.c.WebURL(name), nil
}

// MakeCold implements platform.ColdStarter: overwrite the action with
// itself, a new revision, whose first invocation cannot reuse a warm
// container of the old one.
func (p *Platform) MakeCold(ctx context.Context, name string) (platform.Cold, error) {
	a, ok := p.actions.Get(name)
	if !ok {
		return platform.Cold{}, fmt.Errorf("make %s cold: not deployed by this run", name)
	}
	got, err := p.c.PutAction(ctx, name, a)
	if err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	return platform.Cold{How: "updated the action to a new revision (" + got.Version + "): invokers do not reuse a warm container of an older revision", OnPath: true}, nil
}

// latestTag reports whether an image reference's tag is latest, given or
// implied (DockerContainer.scala: no tag is latest).
func latestTag(image string) bool {
	ref := image[strings.LastIndex(image, "/")+1:]
	ref, _, _ = strings.Cut(ref, "@")
	_, tag, ok := strings.Cut(ref, ":")
	return !ok || tag == "latest"
}

// StartedSince implements platform.ColdStarter from the activation
// records: those with an initTime annotation ran /init in a container that
// had not served the action. What the record says, from the controller's
// and the invoker's annotations (ContainerProxy): the activation's start is
// when /init began (the container was up), initTime how long /init took,
// waitTime the time from the controller taking the request (the
// transaction's start) to then: the load balancer's and the invoker's
// queues and the container's creation, which the record does not split. So
// a start is accepted at start − waitTime, running at start and ready at
// start + initTime; no creation time. Its kind:
//   - prewarm: a native runtime's action whose kind and memory the
//     invokers keep prewarmed containers of (Config.Prewarm): /init in a
//     stem cell when the pool had one (the record does not say whether it
//     had, or a container was created);
//   - image-pull: a Docker action with the Docker container factory, which
//     pulls its image before each container;
//   - container: the others (a container created for the activation).
//
// The records come late on a real OpenWhisk (Config.RecordWait): the list
// is read again until a record of an activation since then is there, at
// most RecordWait; the waits are kept (Platform.waits) and the run's
// record says how long they were (Close).
func (p *Platform) StartedSince(ctx context.Context, name string, since time.Time) ([]platform.StartedInstance, error) {
	acts, err := p.recordsSince(ctx, name, since)
	if err != nil {
		return nil, err
	}
	kind := "container"
	if a, ok := p.actions.Get(name); ok && a.Exec != nil {
		switch {
		case a.Exec.Kind == "blackbox" && p.cfg.ContainerFactory == "docker":
			kind = platform.KindImagePull
		case a.Exec.Kind != "blackbox" && a.Limits != nil && p.cfg.Prewarm[a.Exec.Kind] == a.Limits.Memory:
			kind = platform.KindPrewarm
		}
	}
	var out []platform.StartedInstance
	for i := len(acts) - 1; i >= 0; i-- { // the controller lists newest first
		a := acts[i]
		if it := a.Number("initTime"); it > 0 {
			start := time.UnixMilli(a.Start)
			wait := time.Duration(a.Number("waitTime") * float64(time.Millisecond))
			out = append(out, platform.StartedInstance{ID: a.ActivationID, Kind: kind, Accepted: start.Add(-wait), Running: start,
				Ready: start.Add(time.Duration(it * float64(time.Millisecond)))})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Accepted.Before(out[j].Accepted) })
	return out, nil
}

// explainWait bounds how long Explain waits for a record (the runner gives it 10 s in all).
const explainWait = 7 * time.Second

// Explain implements platform.Explainer: OpenWhisk's record of the action's last failed activation
// since its deploy, in its words: the response's status and its result's error (a web action whose
// /init failed is answered only 400 "There was an error processing your request."; the reason, e.g.
// "The action did not initialize and exited unexpectedly.", is in the record) and the record's last log
// lines. The records come late: read again as StartedSince reads them, within the caller's context and
// at most explainWait; no record at all says so, with the controller's 503 it may be.
func (p *Platform) Explain(ctx context.Context, name string) string {
	since := time.Now().Add(-time.Hour)
	if t, ok := p.deployedAt.Load(name); ok {
		since = t.(time.Time).Add(-time.Second)
	}
	wait := min(p.cfg.RecordWait, explainWait)
	acts, err := p.recordsWithin(ctx, name, since, wait)
	if err != nil {
		return ""
	}
	if len(acts) == 0 {
		return fmt.Sprintf("OpenWhisk has no activation record of %s since it was deployed (asked for %s): either its controller did not pass the request to an invoker (it answers 503 \"The server is currently unavailable\" when its load balancer has none: LoadBalancerException \"No invokers available\", ShardingContainerPoolBalancer.scala; kubectl get pods -l name=owdev-invoker) or the record is not written yet", name, wait)
	}
	for _, a := range acts { // newest first
		if a.Response == nil || a.Response.Success {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "OpenWhisk's record of activation %s of %s: %s", a.ActivationID, name, a.Response.Status)
		if e, ok := a.Response.Result["error"]; ok {
			fmt.Fprintf(&b, ": %v", e)
		}
		if n := len(a.Logs); n > 0 {
			b.WriteString("; its last log lines:")
			for _, l := range a.Logs[max(0, n-5):] {
				b.WriteString("\n  " + l)
			}
		}
		return b.String()
	}
	return ""
}

// recordsSince reads the action's activation records since a time, again
// (every 100 ms, then every 500 ms) until one is there or RecordWait has
// passed: the list is what the store has, and a real OpenWhisk's store
// has a record only some time after the reply. The cold-start kind asks
// since the moment it made the action cold, so the first record since then
// is its cold request's.
func (p *Platform) recordsSince(ctx context.Context, name string, since time.Time) ([]Activation, error) {
	return p.recordsWithin(ctx, name, since, p.cfg.RecordWait)
}

// recordsWithin is recordsSince waiting at most wait.
func (p *Platform) recordsWithin(ctx context.Context, name string, since time.Time, wait time.Duration) ([]Activation, error) {
	start := time.Now()
	for i := 0; ; i++ {
		acts, err := p.c.Activations(ctx, name, since.UnixMilli())
		if err != nil {
			return nil, err
		}
		waited := time.Since(start)
		if len(acts) > 0 || waited >= wait {
			p.waits.add(waited, len(acts) > 0)
			return acts, nil
		}
		pause := 100 * time.Millisecond
		if i >= 10 {
			pause = 500 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(pause, wait-waited)):
		}
	}
}

// Fingerprint implements platform.Fingerprinter: the deployment's limits
// and runtimes (GET / on the API host).
func (p *Platform) Fingerprint(ctx context.Context) (map[string]any, error) {
	f := map[string]any{"platform": Name, "api_host": p.cfg.APIHost, "namespace": p.cfg.Namespace}
	f["validated"] = Validated
	if info, err := p.c.Info(ctx); err == nil {
		f["limits"] = info["limits"]
		f["runtimes"] = info["runtimes"]
		f["build"] = info["build"]
	} else {
		f["info_error"] = err.Error()
	}
	return f, nil
}

// Remove implements platform.Platform.
func (p *Platform) Remove(ctx context.Context, name string) error {
	if err := p.c.DeleteAction(ctx, name); err != nil && !httpapi.IsStatus(err, http.StatusNotFound) {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	p.actions.Delete(name)
	return nil
}

// Close implements platform.Platform: delete every action carrying this
// run's annotation.
func (p *Platform) Close(ctx context.Context) error {
	if w := p.waits.String(); w != "" {
		p.Warn(w)
	}
	acts, err := p.c.Actions(ctx)
	if err != nil {
		return fmt.Errorf("openwhisk cleanup: %w", err)
	}
	var errs []error
	run := kube.LabelValue(p.cfg.RunID)
	for _, a := range acts {
		if v, _ := a.Annotation(AnnRunID).(string); v == run {
			errs = append(errs, p.Remove(ctx, a.Name))
		}
	}
	return errors.Join(errs...)
}
