package openwhisk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/httpapi"
	"github.com/faasbench/faasbench/platform/kube"
)

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
	if fn.Server {
		return p.srv.deploy(ctx, fn) // servers.go: beside OpenWhisk, not an action
	}
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
		return fmt.Errorf("read the action before the put: %w", err) // the runner names the function
	}
	if _, err := p.c.PutAction(ctx, fn.Name, a); err != nil {
		if httpapi.IsStatus(err, http.StatusBadRequest) {
			// The controller refused the action as the spec gave it (a memory outside the namespace's
			// limits: "memory size 1024 MB exceeds allowed threshold of 512 MB"): the spec's fault.
			// (The runner says "deploy <name>:" before it: the real run's message said it twice.)
			return fmt.Errorf("%w: %w", platform.ErrRefused, err)
		}
		return err
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
