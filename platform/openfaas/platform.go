// Package openfaas deploys functions through the OpenFaaS gateway's REST
// API (/system/functions, /system/scale-function, /system/info) with basic
// auth, invokes them at /function/<name>.<namespace> (or asynchronously at
// /async-function/...), and observes their pods, which faas-netes labels
// with the function's labels, through the Kubernetes API.
package openfaas

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/httpapi"
	"github.com/faasbench/faasbench/platform/kube"
)

// Name is the registry name.
const Name = "openfaas"

// UpstreamPort is where a function's own server listens behind the
// of-watchdog (which listens on 8080 and proxies to it).
const UpstreamPort = 8082

// fbrtHealthPath is the function contract's health path (docs/function-contract.md): every faasbench
// runtime answers it with its X-Fb-Instance, and it never counts as the first request.
const fbrtHealthPath = "/_fb/health"

// WatchdogPort is where a function's watchdog listens in its pod (faas-netes
// sets the container port and its Service's target to 8080).
const WatchdogPort = 8080

// Platform deploys through the OpenFaaS gateway.
type Platform struct {
	*kube.Session
	cfg Config
	gw  *Gateway
	// scaleFromZero: the gateway holds a request to a function at zero
	// replicas and scales it up (its scale_from_zero setting, read at Open).
	scaleFromZero bool
	// faasNetesPull is the image_pull_policy faas-netes gives every function.
	faasNetesPull string

	functions kube.Functions[fnState]
}

type fnState struct {
	fn platform.Function
	s  Settings
}

var (
	_ platform.Platform        = (*Platform)(nil)
	_ platform.CPUCapacity     = (*Platform)(nil)
	_ platform.ReplicaWatcher  = (*Platform)(nil)
	_ platform.ResourceSampler = (*Platform)(nil)
	_ platform.ColdStarter     = (*Platform)(nil)
	_ platform.ImageEvicter    = (*Platform)(nil)
	_ platform.Fingerprinter   = (*Platform)(nil)
	_ platform.Headerless      = (*Platform)(nil)
)

// New connects to the cluster and the gateway.
func New(ctx context.Context, pc platform.Config) (*Platform, error) {
	cfg, err := ParseConfig(pc.RunID, pc.Options)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg)
}

// Open is New with a parsed configuration. faas-netes labels a function's
// Deployment with faas_function only (its labels go to the pod template:
// pkg/handlers/deploy.go), so Deployments are watched by that label and
// mapped to the functions this run deploys; pods carry the run's labels.
func Open(ctx context.Context, cfg Config) (*Platform, error) {
	p := &Platform{cfg: cfg}
	s, err := kube.OpenSessionWatching(ctx, cfg.Common, kube.Watching{DeploymentSelector: "faas_function", DeploymentFunction: p.deploymentFunction}, nil)
	if err != nil {
		return nil, err
	}
	p.Session = s
	p.gw = &Gateway{URL: cfg.GatewayURL, User: cfg.Username, Password: password(), HTTP: &http.Client{Timeout: 60 * time.Second}}
	if p.gw.Password == "" {
		sec, err := s.Cluster.Client.CoreV1().Secrets(cfg.OpenFaaSNamespace).Get(ctx, "basic-auth", metav1.GetOptions{})
		if err == nil {
			p.gw.Password = string(sec.Data["basic-auth-password"])
			if u := string(sec.Data["basic-auth-user"]); u != "" {
				p.gw.User = u
			}
		} else {
			s.Warn(fmt.Sprintf("no gateway password: %s is not set and the secret %s/basic-auth cannot be read (%v); calling the gateway without auth", PasswordEnv, cfg.OpenFaaSNamespace, err))
		}
	}
	if env, err := s.Cluster.DeploymentEnv(ctx, cfg.OpenFaaSNamespace, "gateway"); err == nil {
		p.scaleFromZero = env["gateway.scale_from_zero"] == "true"
		p.faasNetesPull = env["faas-netes.image_pull_policy"]
		if note := pullPolicyNote(cfg.PullPolicyAsked, env["faas-netes.image_pull_policy"]); note != "" {
			s.Warn(note)
		}
	}
	if cfg.Edition == EditionCE {
		// CE serves one namespace (faas-netes pkg/handlers/namespaces.go lists only it, and
		// deploy.go answers 400 to any other): refuse before deploying anything.
		if nss, err := p.gw.Namespaces(ctx); err == nil && !slices.Contains(nss, p.Namespace()) {
			err = fmt.Errorf("%w: platform.namespace: %q: OpenFaaS CE serves functions only in %s (its gateway's /system/namespaces); with OpenFaaS Standard or Enterprise set platform.options.edition: pro",
				platform.ErrRefused, p.Namespace(), strings.Join(nss, ", "))
			return nil, errors.Join(err, s.Close(context.WithoutCancel(ctx)))
		}
	}
	return p, nil
}

// deploymentFunction maps a Deployment's labels to the function of this run
// it belongs to ("" for any other).
func (p *Platform) deploymentFunction(l map[string]string) string {
	name := l["faas_function"]
	if _, ok := p.functions.Get(name); ok {
		return name
	}
	return ""
}

// Name implements platform.Platform.
func (p *Platform) Name() string { return Name }

// Headerless implements platform.Headerless: behind the classic watchdog,
// and of-watchdog's serializing and streaming modes, the function is a
// process per request whose stdout is the whole reply (seen on the real
// node: of-serializing answers 200 without the function's headers).
func (p *Platform) Headerless(name string) string {
	if st, ok := p.functions.Get(name); ok && st.s.Watchdog != "of-http" {
		return "OpenFaaS's " + st.s.Watchdog + " watchdog sends only the forked function's output"
	}
	return ""
}

// Endpoint implements platform.Platform: the gateway's synchronous (or,
// with settings.invoke async, asynchronous) route for the function.
func (p *Platform) Endpoint(_ context.Context, name string) (string, error) {
	st, ok := p.functions.Get(name)
	route := "/function/"
	if ok && st.s.Async {
		route = "/async-function/"
	}
	return p.cfg.GatewayURL + route + name + "." + p.Namespace() + "/", nil
}

// DirectEndpoints implements platform.DirectCaller: every ready pod of the
// function at its watchdog (port 8080, which faas-netes' Service targets), so
// the gateway and faas-netes' proxy are out of the path.
func (p *Platform) DirectEndpoints(ctx context.Context, name string) ([]string, error) {
	return p.PodEndpoints(ctx, name, WatchdogPort)
}

// Fingerprint implements platform.Fingerprinter: the cluster, the
// gateway's /system/info, the OpenFaaS components and the gateway's
// settings (its environment: timeouts, scale from zero, direct functions).
func (p *Platform) Fingerprint(ctx context.Context) (map[string]any, error) {
	f := p.Session.Fingerprint(ctx, Name, p.cfg.OpenFaaSNamespace)
	f["validated"] = Validated(p.cfg.Edition)
	f["edition"], f["scale_from_zero"] = p.cfg.Edition, p.scaleFromZero
	if info, err := p.gw.Info(ctx); err == nil {
		f["gateway_info"] = info
	} else {
		f["gateway_info_error"] = err.Error()
	}
	if env, err := p.Cluster.DeploymentEnv(ctx, p.cfg.OpenFaaSNamespace, "gateway"); err == nil {
		f["gateway_settings"] = env
	} else {
		f["gateway_settings_error"] = err.Error()
	}
	return f, nil
}

// Remove implements platform.Platform: delete through the gateway, then
// anything left by label.
func (p *Platform) Remove(ctx context.Context, name string) error {
	if err := p.gw.Delete(ctx, name, p.Namespace()); err != nil && !httpapi.IsStatus(err, http.StatusNotFound) {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	p.functions.Delete(name)
	if err := p.Session.Remove(ctx, name); err != nil {
		return err
	}
	return p.waitUnlisted(ctx, name)
}

// waitUnlisted polls the gateway until it no longer lists name. faas-netes
// deletes a function's Deployment with foreground propagation (it stays,
// marked deleted, until its pods are gone) and reads functions from an
// informer's cache, which lags the API server: a function deployed again
// too soon is found, updated instead of created, and the update fails on
// its deleted Service (seen on the real node: "PUT /system/functions: HTTP
// 404: unable update Service: steps-max4.openfaas-fn, error: services
// \"steps-max4\" not found" at the next repetition's deploy).
func (p *Platform) waitUnlisted(ctx context.Context, name string) error {
	var last error
	err := kube.Poll(ctx, p.ReadyTimeout, 100*time.Millisecond, func(ctx context.Context) (bool, error) {
		_, last = p.gw.Function(ctx, name, p.Namespace())
		return httpapi.IsStatus(last, http.StatusNotFound), nil
	})
	if errors.Is(err, kube.ErrTimeout) {
		return fmt.Errorf("remove %s: the gateway still lists it %s after its removal (last: %v)", name, p.ReadyTimeout, last)
	}
	if err != nil {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	return nil
}

// Close implements platform.Platform.
func (p *Platform) Close(ctx context.Context) error {
	var errs []error
	for _, n := range p.functions.Names() {
		if err := p.gw.Delete(ctx, n, p.Namespace()); err != nil && !httpapi.IsStatus(err, http.StatusNotFound) {
			errs = append(errs, err)
		}
	}
	return errors.Join(append(errs, p.Session.Close(ctx))...)
}

// Requirements are what a run needs of the cluster (the gateway itself is
// reached over HTTP).
func Requirements() kube.Requirements { return kube.Requirements{Needs: kube.ObserveNeeds()} }
