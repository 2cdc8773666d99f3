// Package fission runs functions on Fission through its CRDs
// (fission.io/v1: Environment, Package, Function, HTTPTrigger) with the
// poolmgr, newdeploy or container executor, invoked through Fission's
// router at /<name>.
package fission

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Name is the registry name.
const Name = "fission"

// Platform deploys Fission functions.
type Platform struct {
	*kube.Session
	cfg Config

	functions kube.Functions[Settings]
	// podAnswering waits until the function answers as itself at one pod's
	// address (kube.WaitAnswering, one instance); tests reroute it.
	podAnswering func(ctx context.Context, name, podURL string, timeout time.Duration) error
	// coldAt: function name → when poolCold last found it cold.
	coldAt sync.Map
	// deployedAt: function name → when Deploy began (Explain reads the executor's log from then).
	deployedAt sync.Map
	// settled: newdeploy and container functions whose Deployment the
	// executor has brought up once (MakeCold waits for that the first time).
	settled sync.Map
}

var (
	_ platform.Platform        = (*Platform)(nil)
	_ platform.CPUCapacity     = (*Platform)(nil)
	_ platform.ReplicaWatcher  = (*Platform)(nil)
	_ platform.ResourceSampler = (*Platform)(nil)
	_ platform.Fingerprinter   = (*Platform)(nil)
	_ platform.ColdStarter     = (*Platform)(nil)
	_ platform.DirectCaller    = (*Platform)(nil)
	_ platform.Explainer       = (*Platform)(nil)
)

// Kinds are the Fission resources a run creates, triggers first.
func Kinds() []schema.GroupVersionResource {
	return []schema.GroupVersionResource{TriggerGVR, FunctionGVR, PackageGVR, EnvironmentGVR}
}

var gvrOf = map[string]schema.GroupVersionResource{"Environment": EnvironmentGVR, "Package": PackageGVR, "Function": FunctionGVR, "HTTPTrigger": TriggerGVR}

// New connects and watches the run's Deployments and pods (Fission merges
// the function's and the environment's labels into them).
func New(ctx context.Context, pc platform.Config) (*Platform, error) {
	cfg, err := ParseConfig(pc)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg)
}

// Open is New with a parsed configuration.
func Open(ctx context.Context, cfg Config) (*Platform, error) {
	s, err := kube.OpenSession(ctx, cfg.Common, nil, Kinds())
	if err != nil {
		return nil, err
	}
	if err := checkNamespace(ctx, s, cfg); err != nil {
		return nil, errors.Join(err, s.Close(context.WithoutCancel(ctx)))
	}
	if err := checkRouter(ctx, cfg); err != nil {
		return nil, errors.Join(err, s.Close(context.WithoutCancel(ctx)))
	}
	return &Platform{Session: s, cfg: cfg, podAnswering: func(ctx context.Context, _, podURL string, timeout time.Duration) error {
		return kube.WaitAnswering(ctx, podURL, 1, timeout, nil)
	}}, nil
}

// Name implements platform.Platform.
func (p *Platform) Name() string { return Name }

// checkNamespace refuses a namespace Fission does not watch. In its static
// tenancy (the default) Fission's components serve the namespaces of
// FISSION_DEFAULT_NAMESPACE and FISSION_RESOURCE_NAMESPACES, "default" when
// both are empty (pkg/utils/namespace.go GetNamespaces), read here from the
// executor Deployment's environment; a Function elsewhere is never seen.
// When that environment cannot be read, a warning says what was not checked.
func checkNamespace(ctx context.Context, s *kube.Session, cfg Config) error {
	env, err := s.Cluster.DeploymentEnv(ctx, cfg.FissionNamespace, "executor")
	if err != nil {
		s.Warn(fmt.Sprintf("the namespaces Fission watches were not checked (%v): a namespace it does not watch leaves every Function unserved", err))
		return nil
	}
	return namespaceRefusal(s.Namespace(), env)
}

// namespaceRefusal is checkNamespace's verdict from the executor's environment (its keys are
// container.NAME): a namespace Fission does not watch, and the namespace "default" when Fission runs
// the pods of its functions elsewhere: with FISSION_FUNCTION_NAMESPACE set (the chart's
// functionNamespace), a Function in "default" gets its pods and Services in that namespace
// (pkg/utils/namespace.go GetFunctionNS), where faasbench, which watches the functions' own
// namespace, would see none of them (#59).
func namespaceRefusal(ns string, env map[string]string) error {
	var mode, def, more, fnNS string
	for k, v := range env {
		switch k[strings.IndexByte(k, '.')+1:] {
		case "FISSION_TENANCY_MODE":
			mode = v
		case "FISSION_DEFAULT_NAMESPACE":
			def = v
		case "FISSION_RESOURCE_NAMESPACES":
			more = v
		case "FISSION_FUNCTION_NAMESPACE":
			fnNS = v
		}
	}
	if fnNS != "" && ns == "default" && fnNS != "default" {
		return fmt.Errorf("%w: platform.namespace: \"default\": Fission runs the pods of functions in namespace default in %q (its executor's FISSION_FUNCTION_NAMESPACE, the chart's functionNamespace), where faasbench would not see them; run in another namespace Fission watches (FISSION_RESOURCE_NAMESPACES), whose functions keep their pods",
			platform.ErrRefused, fnNS)
	}
	if mode != "" && mode != "static" {
		return nil // dynamic or cluster tenancy onboards namespaces at run time
	}
	watched := []string{}
	for _, n := range append([]string{def}, strings.Split(more, ",")...) {
		if n != "" && !slices.Contains(watched, n) {
			watched = append(watched, n)
		}
	}
	if len(watched) == 0 {
		watched = []string{"default"}
	}
	if !slices.Contains(watched, ns) {
		return fmt.Errorf("%w: platform.namespace: %q: Fission watches only %s (its executor's FISSION_DEFAULT_NAMESPACE and FISSION_RESOURCE_NAMESPACES); add the namespace there or run in one of them",
			platform.ErrRefused, ns, strings.Join(watched, ", "))
	}
	return nil
}

// routerWait and routerPause bound checkRouter: a router that is starting answers within seconds.
const (
	routerWait  = 5 * time.Second
	routerPause = time.Second
)

// checkRouter asks Fission's router whether it is ready (/readyz: 200 once its routes are built, else 503
// "router mux not yet built": pkg/router/httpTriggers.go routerReadinessHandler) before anything is
// deployed: every request of the run goes through it, and a router that is down or a router_url that is
// not its address would otherwise show as every function timing out. Refused in one sentence with the
// router's or the connection's own words.
func checkRouter(ctx context.Context, cfg Config) error {
	client := &http.Client{Timeout: routerWait}
	var last string
	err := kube.Poll(ctx, routerWait, routerPause, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.RouterURL+"/readyz", nil)
		if err != nil {
			return false, fmt.Errorf("platform.options.router_url: %w", err)
		}
		resp, err := client.Do(req)
		if err != nil {
			if last == "" || ctx.Err() == nil { // a try cut by the wait's end says less than the one before
				last = err.Error()
			}
			return false, nil
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		_ = resp.Body.Close()
		last = fmt.Sprintf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
		return resp.StatusCode == http.StatusOK, nil
	})
	if errors.Is(err, kube.ErrTimeout) {
		return fmt.Errorf("%w: platform.options.router_url: Fission's router at %s is not ready (%s, asked every %s for %s); every request goes through it: check that it runs (kubectl -n %s get deployment router) and that router_url is its address from where faasbench runs",
			platform.ErrRefused, cfg.RouterURL, last, routerPause, routerWait, cfg.FissionNamespace)
	}
	return err
}

// DirectEndpoints implements platform.DirectCaller: every ready pod that
// serves the function, past the router. A container function's pods on the
// port its container declares (kube.Port); a poolmgr or newdeploy pod serves
// the environment's server on 8888 behind the fetcher's specialisation. Of a
// poolmgr function only the pool pods Fission has specialised for it and
// admits into its Service (ServedLabel): the pool's generic pods carry the
// function's labels too (its Environment's), and a call at one is answered
// 500 by Fission's environment (python/server.py userfunc_call: no function
// loaded). Found on the real node: a direct cell took a generic pod (the
// first in the API's list) and measured 3314 of those 500s.
func (p *Platform) DirectEndpoints(ctx context.Context, name string) ([]string, error) {
	s, ok := p.functions.Get(name)
	if !ok {
		return nil, fmt.Errorf("direct endpoints of %s: not deployed by this run", name)
	}
	switch s.Executor {
	case Container:
		return p.PodEndpoints(ctx, name, kube.Port)
	case PoolMgr:
		return p.PodEndpointsWhere(ctx, name, servedSelector(name), EnvPort)
	}
	return p.PodEndpoints(ctx, name, EnvPort)
}

// EnvPort is the port of an environment's server in a poolmgr or newdeploy
// pod (Fission's runtime contract: the router and the fetcher call it there).
const EnvPort = 8888

// Endpoint implements platform.Platform: the router and the trigger's URL.
func (p *Platform) Endpoint(_ context.Context, name string) (string, error) {
	return p.cfg.RouterURL + "/" + name, nil
}

// Fingerprint implements platform.Fingerprinter: the cluster, Fission's
// component images and the executor's settings (its Deployment's env).
func (p *Platform) Fingerprint(ctx context.Context) (map[string]any, error) {
	f := p.Session.Fingerprint(ctx, Name, p.cfg.FissionNamespace)
	f["validated"] = Validated
	if env, err := p.Cluster.DeploymentEnv(ctx, p.cfg.FissionNamespace, "executor"); err == nil {
		f["executor_settings"] = env
	}
	// The router's round trip (ROUTER_ROUND_TRIP_TIMEOUT, _EXPONENT, _MAX_RETRIES): a cold start measured
	// through the router includes its backoff between dials of a pod that does not listen yet.
	if env, err := p.Cluster.DeploymentEnv(ctx, p.cfg.FissionNamespace, "router"); err == nil {
		f["router_settings"] = env
	}
	// What faasbench chooses where a Fission user's CLI would choose otherwise (#59).
	f["differs_from_fission_cli"] = []string{fmt.Sprintf("function pods' terminationGracePeriodSeconds %d s unless settings.grace_period (fission's CLI writes 360 s)", DefaultGracePeriod)}
	return f, nil
}

// Remove implements platform.Platform.
func (p *Platform) Remove(ctx context.Context, name string) error {
	p.functions.Delete(name)
	p.settled.Delete(name)
	p.coldAt.Delete(name)
	return p.Session.Remove(ctx, name)
}

// Requirements are what a run needs of the cluster.
func Requirements() kube.Requirements { return kube.CRDRequirements(Kinds()) }
