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
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/httpapi"
	"github.com/faasbench/faasbench/platform/kube"
)

// Name is the registry name.
const Name = "openwhisk"

// Annotations faasbench puts on its actions, so leftovers can be found.
const (
	AnnRunID    = "faasbench-run-id"
	AnnFunction = "faasbench-function"
)

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
	// srv runs baseline.server's servers beside OpenWhisk (servers.go).
	srv servers
	// pods samples the action pods' CPU and memory (pods.go) and OpenWhisk's own (components.go); nil without
	// platform.options.pods_namespace.
	pods podSampler
}

var (
	_ platform.Platform         = (*Platform)(nil)
	_ platform.ColdStarter      = (*Platform)(nil)
	_ platform.Explainer        = (*Platform)(nil)
	_ platform.Fingerprinter    = (*Platform)(nil)
	_ platform.NotReadyReporter = (*Platform)(nil)
	_ platform.LoadChecker      = (*Platform)(nil)
	_ platform.DirectCaller     = (*Platform)(nil)
	_ platform.ResourceSampler  = (*Platform)(nil)
)

// New reads the options and the API key from $FB_OPENWHISK_AUTH, and connects to the action pods' cluster when
// platform.options.pods_namespace names it.
func New(ctx context.Context, pc platform.Config) (*Platform, error) {
	cfg, err := ParseConfig(pc)
	if err != nil {
		return nil, err
	}
	auth := os.Getenv(AuthEnv)
	if auth == "" || !strings.Contains(auth, ":") {
		return nil, fmt.Errorf("%s must hold the API key as uuid:key (wsk property get --auth)", AuthEnv)
	}
	p := Open(cfg, auth)
	pods, warns, err := openPods(ctx, cfg)
	if err != nil {
		return nil, err
	}
	p.pods = pods
	for _, w := range warns {
		p.Warn("platform.options.pods_namespace: " + w)
	}
	return p, nil
}

// Open is New with a parsed configuration and key.
func Open(cfg Config, auth string) *Platform {
	return &Platform{cfg: cfg, srv: servers{open: openBaseline(cfg.RunID, cfg.Servers)},
		c: &Client{APIHost: cfg.APIHost, Namespace: cfg.Namespace, Auth: auth, HTTP: &http.Client{Timeout: 70 * time.Second}}}
}

// Name implements platform.Platform.
func (p *Platform) Name() string { return Name }

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

// explainWait bounds how long Explain waits for a record (the runner gives it 10 s in all).
const explainWait = 7 * time.Second

// Fingerprint implements platform.Fingerprinter: the deployment's limits
// and runtimes (GET / on the API host).
func (p *Platform) Fingerprint(ctx context.Context) (map[string]any, error) {
	f := map[string]any{"platform": Name, "api_host": p.cfg.APIHost, "namespace": p.cfg.Namespace, "deployment": p.cfg.Deployment,
		"container_factory": p.cfg.ContainerFactory}
	if d := Deployments[p.cfg.Deployment]; d != "" {
		f["differs_from_deploy_kube"] = d
	}
	f["validated"] = Validated
	if p.cfg.Pods != nil {
		// Where the action containers' CPU and memory came from (pods.go).
		f["action_pods"] = map[string]any{"namespace": p.cfg.Pods.Namespace, "selector": ActionLabel + ", " + NamespaceLabel,
			"components_selector": ComponentSelector}
	}
	if info, err := p.c.Info(ctx); err == nil {
		// The controller's info route (Controller.scala) says its limits and runtimes, not its build (the
		// stand-in said a build, which the real one never did).
		f["limits"] = info["limits"]
		f["runtimes"] = info["runtimes"]
	} else {
		f["info_error"] = err.Error()
	}
	return f, nil
}

// Remove implements platform.Platform.
func (p *Platform) Remove(ctx context.Context, name string) error {
	if p.srv.is(name) {
		if err := p.srv.remove(ctx, name); err != nil {
			return fmt.Errorf("remove %s: %w", name, err)
		}
		return nil
	}
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
	_, err := p.Clean(ctx, p.cfg.RunID)
	if err != nil {
		err = fmt.Errorf("openwhisk cleanup: %w", err)
	}
	return errors.Join(err, p.srv.close(ctx))
}

// Clean deletes the namespace's actions faasbench made (its function annotation), only one run's with a
// run ID: what a killed run left (faasbench platform clean -p openwhisk). Actions without faasbench's
// annotations are never touched. Returns the names it deleted.
func (p *Platform) Clean(ctx context.Context, runID string) ([]string, error) {
	acts, err := p.c.Actions(ctx)
	if err != nil {
		return nil, err
	}
	var errs []error
	var gone []string
	run := kube.LabelValue(runID)
	for _, a := range acts {
		if _, ours := a.Annotation(AnnFunction).(string); !ours {
			continue
		}
		if v, _ := a.Annotation(AnnRunID).(string); runID != "" && v != run {
			continue
		}
		if err := p.Remove(ctx, a.Name); err != nil {
			errs = append(errs, err)
			continue
		}
		gone = append(gone, a.Name)
	}
	return gone, errors.Join(errs...)
}
