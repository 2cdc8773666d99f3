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
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
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

// SecretsMountPath is where faas-netes mounts a function's secrets, a file
// per key (faas-netes pkg/k8s/secrets.go).
const SecretsMountPath = "/var/openfaas/secrets"

// functionImage is fn's OpenFaaS image: the workload's server behind the
// of-watchdog (workloads/<w>/<lang>/Dockerfile.openfaas), the workload run
// per request by the classic watchdog (Dockerfile.openfaas-classic: mode
// fork, watchdog classic), or settings.image.
func (c Config) functionImage(fn platform.Function, s Settings) string {
	if s.Watchdog == "classic" {
		return c.Image(fn.Workload, fn.Language+"-openfaas-classic", s.Image)
	}
	return c.Image(fn.Workload, fn.Language+"-openfaas", s.Image)
}

// InClusterGateway is the gateway's address from a pod: the chart's
// Service "gateway" in OpenFaaS's namespace, port 8080.
func (c Config) InClusterGateway() string {
	return "http://gateway." + c.OpenFaaSNamespace + ":8080"
}

// Deployment is the gateway request for fn: the image, faasbench's and the
// scaling labels, the function contract's environment with the watchdog's
// settings, and the resources.
func (c Config) Deployment(ns string, fn platform.Function, s Settings) FunctionDeployment {
	labels := kube.FunctionLabels(c.RunLabel(), fn)
	maps.Copy(labels, s.Labels)
	env := map[string]string{}
	for _, e := range kube.ContractEnv(fn, false) {
		if e.ValueFrom == nil { // a secret: a file, below
			env[e.Name] = e.Value
		}
	}
	if s.Watchdog != "classic" {
		env["mode"] = strings.TrimPrefix(s.Watchdog, "of-")
	}
	if s.Watchdog == "of-http" {
		env["upstream_url"] = "http://127.0.0.1:" + strconv.Itoa(UpstreamPort)
		env["FB_HOST"], env["FB_PORT"] = "127.0.0.1", strconv.Itoa(UpstreamPort)
	} else {
		// Every other watchdog forks fprocess per request: a faasbench
		// runtime serves that one request from stdin to stdout.
		env["FB_MODE"] = "stdio"
	}
	if _, set := env["FB_GATEWAY_URL"]; !set {
		// A function that calls others (mapreduce) does so through the
		// gateway, at its in-cluster address (the chart's Service), as the
		// local platform gives its own.
		env["FB_GATEWAY_URL"] = c.InClusterGateway()
	}
	if fn.Concurrency > 0 {
		env["max_inflight"] = strconv.Itoa(fn.Concurrency)
	}
	for k, v := range s.Timeouts {
		env[k] = v
	}
	d := FunctionDeployment{Service: fn.Name, Image: c.functionImage(fn, s), Namespace: ns, EnvVars: env, Labels: &labels}
	if len(fn.SecretEnv) > 0 {
		// faas-netes would write envVars into the Deployment as literal
		// values; a secret is an OpenFaaS secret instead, which faas-netes
		// mounts as one file per key under /var/openfaas/secrets
		// (pkg/k8s/secrets.go, ConfigureSecrets), and which the function's
		// runtime reads into its environment at start (FB_SECRETS_DIR).
		d.Secrets = []string{kube.EnvSecretName(fn.Name)}
		env["FB_SECRETS_DIR"] = SecretsMountPath
	}
	if s.Watchdog != "of-http" {
		d.EnvProcess = s.FProcess
	}
	if fn.MemoryMB > 0 || fn.CPUs > 0 {
		r := FunctionResources{}
		if fn.MemoryMB > 0 {
			r.Memory = fmt.Sprintf("%dMi", fn.MemoryMB)
		}
		if fn.CPUs > 0 {
			r.CPU = fmt.Sprintf("%dm", int64(fn.CPUs*1000+0.5))
		}
		req := r
		d.Limits, d.Requests = &r, &req
	}
	return d
}

// wanted is the replica count a deploy waits for.
func wanted(fn platform.Function, s Settings) int {
	n, _ := strconv.Atoi(s.Labels[LabelScaleMin])
	if !s.Autoscaled {
		n = max(fn.Replicas, 1)
	}
	return max(n, 1)
}

// refusal makes a gateway's 400 the user's error (exit 2), in its words.
func refusal(err error) error {
	if httpapi.IsStatus(err, http.StatusBadRequest) {
		return fmt.Errorf("%w: %w", platform.ErrRefused, err)
	}
	return err
}

// Deploy implements platform.Platform: create or update through the
// gateway, wait for the replicas, then for the function itself: of-watchdog
// answers its health check (/_/health, which faas-netes probes) as soon as
// it has started the function's process, before that listens (of-watchdog
// executor/http_runner.go Start, pkg/watchdog.go makeHealthHandler), so a
// Ready pod may still answer 502.
func (p *Platform) Deploy(ctx context.Context, fn platform.Function) error {
	s, err := ParseSettings(fn)
	if err == nil {
		err = CheckEdition(p.cfg.Edition, fn, s)
	}
	if err != nil {
		return fmt.Errorf("function %s: %w: %w", fn.Name, platform.ErrRefused, err)
	}
	d := p.cfg.Deployment(p.Namespace(), fn, s)
	p.functions.Put(fn.Name, fnState{fn: fn, s: s})
	old, err := p.gw.Function(ctx, fn.Name, p.Namespace())
	switch {
	case err == nil:
		if old.Labels == nil || (*old.Labels)[kube.LabelManagedBy] != kube.ManagedBy {
			return fmt.Errorf("openfaas function %s/%s exists and was not made by faasbench: choose another function name or namespace", p.Namespace(), fn.Name)
		}
		if err = p.PutEnvSecret(ctx, fn); err == nil {
			err = p.gw.Update(ctx, d)
		}
		if err == nil {
			// The gateway answers the PUT once faas-netes has written the
			// Deployment; its old pods still serve until the rollout ends
			// (seen on the real 2022 gateway: the call after a redeploy
			// reached an old pod).
			if err = p.Cluster.WaitRolledOut(ctx, p.Namespace(), fn.Name, p.ReadyTimeout); err != nil {
				return fmt.Errorf("redeploy %s: %w", fn.Name, err)
			}
		}
	case httpapi.IsStatus(err, http.StatusNotFound):
		if err = p.PutEnvSecret(ctx, fn); err == nil {
			err = p.gw.Deploy(ctx, d)
		}
	}
	if err != nil {
		return fmt.Errorf("deploy %s: %w", fn.Name, refusal(err))
	}
	p.noteLimits(fn, s)
	n := wanted(fn, s)
	if err := p.WaitReplicas(ctx, fn.Name, n); err != nil {
		return err
	}
	return p.waitFunction(ctx, fn.Name, n)
}

// noteLimits records, for the run, what OpenFaaS does differently from the
// other platforms with fn's settings.
func (p *Platform) noteLimits(fn platform.Function, s Settings) {
	if fn.Concurrency > 0 {
		p.Warn(fmt.Sprintf("function %s: max_inflight %d: of-watchdog answers 429 at once to a request over the limit (faas-middleware's concurrency limiter; no queue), where Knative's queue-proxy queues it: its 429s are refusals, not time spent waiting", fn.Name, fn.Concurrency))
	}
	if s.Async {
		p.Warn(fmt.Sprintf("function %s: invoke async: the gateway answers 202 once the request is queued; a latency is the enqueue time, never the function's", fn.Name))
	}
}

// waitFunction waits until n distinct instances of name have answered
// through the gateway as the function (faas-netes' proxy picks an endpoint
// per request), bounded by platform.options.ready_timeout. It calls the
// runtime's health path (the function contract's GET /_fb/health, with the
// instance's X-Fb-Instance), never the function itself: a call to the
// function could take longer than a probe's timeout (the image workload's
// default request did, on the real gateway, and each timed-out try left its
// work running on the node's core) and would be its first request.
func (p *Platform) waitFunction(ctx context.Context, name string, n int) error {
	url, err := p.Endpoint(ctx, name)
	if err != nil {
		return err
	}
	url += strings.TrimPrefix(fbrtHealthPath, "/")
	if st, ok := p.functions.Get(name); ok && st.s.Async {
		return nil // the gateway answers 202 whoever runs
	}
	auth := func(r *http.Request) {
		if p.gw.Password != "" {
			r.SetBasicAuth(p.gw.User, p.gw.Password)
		}
	}
	if p.Headerless(name) != "" {
		// A watchdog that forks the function per request: no server to
		// wait for, no instance to count; one reply through the gateway.
		err = kube.WaitAnswered(ctx, url, p.ReadyTimeout, auth)
	} else {
		err = kube.WaitAnswering(ctx, url, n, p.ReadyTimeout, auth)
	}
	if err != nil {
		return fmt.Errorf("function %s through the gateway: %w", name, err)
	}
	return nil
}

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

// Scale implements platform.Platform through /system/scale-function. On
// CE, 0 and more than 5 are refused: the gateway would raise 0 to 1 and
// lower anything above 5 to 5 (scaling/ranges.go).
func (p *Platform) Scale(ctx context.Context, name string, replicas int) error {
	if replicas < 0 {
		return fmt.Errorf("scale %s: replicas %d is negative", name, replicas)
	}
	if p.cfg.Edition == EditionCE && (replicas == 0 || replicas > MaxReplicasCE) {
		return fmt.Errorf("scale %s to %d: %w: OpenFaaS CE's gateway scales a function to between 1 and %d replicas (scaling/ranges.go) and faas-netes refuses 0 (replica_updater.go); with OpenFaaS Standard or Enterprise set platform.options.edition: pro",
			name, replicas, platform.ErrRefused, MaxReplicasCE)
	}
	if st, ok := p.functions.Get(name); ok && !st.s.Autoscaled && replicas > 0 && st.s.Labels[LabelScaleMin] != strconv.Itoa(replicas) {
		return p.refix(ctx, st, replicas)
	}
	if err := p.gw.Scale(ctx, name, p.Namespace(), replicas); err != nil {
		return refusal(err)
	}
	if err := p.WaitReplicas(ctx, name, replicas); err != nil || replicas == 0 {
		return err
	}
	return p.waitFunction(ctx, name, replicas)
}

// refix gives a function of fixed replicas (no scale_min or scale_max of
// its own) another count the way OpenFaaS keeps one: its
// com.openfaas.scale.min and max both set to it, through the gateway's
// update (faas-netes sets the Deployment's replicas to min and rolls its
// pods: a new uid label), not /system/scale-function alone. OpenFaaS's own
// autoscaling sets every function it has an alert for to its labels' range:
// a resolved alert to min, a firing one to at most max
// (gateway/handlers/alerthandler.go, CalculateReplicas). Seen on the real
// node: under seed 000's batches the gateway logged "[Scale]
// function=reverse-cpp 4 => 1" a dozen times in ten minutes, so cells
// asking for 2 and 4 replicas ran on 1 for part of their time.
func (p *Platform) refix(ctx context.Context, st fnState, replicas int) error {
	fn := st.fn
	fn.Replicas = replicas
	s, err := ParseSettings(fn)
	if err != nil {
		return fmt.Errorf("scale %s to %d: %w", fn.Name, replicas, err)
	}
	if err := p.gw.Update(ctx, p.cfg.Deployment(p.Namespace(), fn, s)); err != nil {
		return fmt.Errorf("scale %s to %d (com.openfaas.scale.min and max): %w", fn.Name, replicas, refusal(err))
	}
	p.functions.Put(fn.Name, fnState{fn: fn, s: s})
	if err := p.Cluster.WaitRolledOut(ctx, p.Namespace(), fn.Name, p.ReadyTimeout); err != nil {
		return fmt.Errorf("scale %s to %d: %w", fn.Name, replicas, err)
	}
	if err := p.WaitReplicas(ctx, fn.Name, replicas); err != nil {
		return err
	}
	return p.waitFunction(ctx, fn.Name, replicas)
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

// gatewayCacheExpiry is how long the gateway trusts a function's replica
// count (gateway/main.go, scalingConfig.CacheExpiry: 250 ms).
const gatewayCacheExpiry = 250 * time.Millisecond

// MakeCold implements platform.ColdStarter. Standard and Enterprise scale
// to zero through the gateway. CE never has a function at zero: its API
// refuses 0, and its faas-netes raises any function's Deployment that
// reaches 0 replicas, however it got there, back to 1 (pkg/handlers/
// informers.go applyValidation, CE from 2023; scaling the Deployment to 0
// through the Kubernetes API waited for a zero that never came). What CE
// allows: with the gateway's scale_from_zero, the function is removed and
// deployed anew through the gateway and the call sent at once; the gateway
// holds it while no replica is available (gateway/scaling/function_scaler.go
// polls until one is), so the start-up after the send is on the request
// (kind after-deploy: the pod was created before the send, and its phases
// say by how much). Without scale_from_zero the gateway would not hold the
// call: the pods are deleted and new ones started before the next request,
// which is then only their first.
func (p *Platform) MakeCold(ctx context.Context, name string) (platform.Cold, error) {
	st, ok := p.functions.Get(name)
	if !ok {
		return platform.Cold{}, fmt.Errorf("make %s cold: not deployed by this run", name)
	}
	t0 := time.Now()
	if p.cfg.Edition != EditionCE {
		if err := p.Scale(ctx, name, 0); err != nil {
			return platform.Cold{}, err
		}
		// Until its replica cache expires the gateway may still count the
		// pods that were: the next call would not wait for a new one.
		select {
		case <-ctx.Done():
			return platform.Cold{}, ctx.Err()
		case <-time.After(4 * gatewayCacheExpiry):
		}
		return platform.Cold{How: fmt.Sprintf("scaled to 0 through the gateway in %s, then %s for the gateway's replica cache to expire; the gateway scales from zero on the next request",
			time.Since(t0).Round(time.Millisecond), 4*gatewayCacheExpiry), OnPath: true}, nil
	}
	n := wanted(st.fn, st.s)
	if p.scaleFromZero {
		if err := p.gw.Delete(ctx, name, p.Namespace()); err != nil && !httpapi.IsStatus(err, http.StatusNotFound) {
			return platform.Cold{}, fmt.Errorf("make %s cold: remove it: %w", name, err)
		}
		if err := p.Cluster.WaitNoPods(ctx, p.Namespace(), p.Selector(name), p.ReadyTimeout); err != nil {
			return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
		}
		// Its Deployment, deleted with foreground propagation, goes after its
		// pods: created again before, it would be "being deleted".
		if err := p.waitUnlisted(ctx, name); err != nil {
			return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
		}
		removed := time.Since(t0)
		if err := p.gw.Deploy(ctx, p.cfg.Deployment(p.Namespace(), st.fn, st.s)); err != nil {
			return platform.Cold{}, fmt.Errorf("make %s cold: deploy it anew: %w", name, refusal(err))
		}
		return platform.Cold{How: fmt.Sprintf("OpenFaaS CE: the function removed through the gateway (%s, its pods gone) and deployed anew, the call sent at once (CE's faas-netes raises a function at 0 replicas back to 1: nothing scales from zero); the gateway's scale_from_zero holds the call until the new pod is ready",
			removed.Round(time.Millisecond)), OnPath: true, Deployed: true}, nil
	}
	if err := p.Cluster.Client.CoreV1().Pods(p.Namespace()).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: p.Selector(name)}); err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: delete its pods: %w", name, err)
	}
	if err := p.WaitReplicas(ctx, name, n); err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	if err := p.waitFunction(ctx, name, n); err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	return platform.Cold{How: fmt.Sprintf("OpenFaaS CE without scale_from_zero: the function's pods deleted and %d new one(s) ready in %s; the next request is a new pod's first, its start-up is not on the request", n, time.Since(t0).Round(time.Millisecond))}, nil
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

// EvictImage implements platform.ImageEvicter: the function's image is
// removed from the node once its pods are gone, so that the gateway's scale
// from zero starts a pod that pulls it. Not on CE, whose cold start removes
// and deploys the function in one step (MakeCold): no moment is left
// without pods.
func (p *Platform) EvictImage(ctx context.Context, name string) (string, error) {
	st, ok := p.functions.Get(name)
	if !ok {
		return "", fmt.Errorf("evict the image of %s: not deployed by this run", name)
	}
	if p.faasNetesPull == string(corev1.PullNever) {
		return "", fmt.Errorf("coldstart.evict_image: %w: faas-netes gives every function image_pull_policy Never (the chart's faasnetes.imagePullPolicy), so a pod could never pull the image back; install OpenFaaS with IfNotPresent", platform.ErrRefused)
	}
	if p.cfg.Edition == EditionCE {
		return "", fmt.Errorf("coldstart.evict_image: %w: OpenFaaS CE never has a function at zero replicas (its cold start deploys the function anew at once), so there is no moment to remove the image; use edition %s or a standard edition", platform.ErrRefused, EditionCE2022)
	}
	return p.EvictImageOf(ctx, name, p.cfg.functionImage(st.fn, st.s))
}
