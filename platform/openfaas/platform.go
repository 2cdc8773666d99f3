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
	"strconv"
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

// Platform deploys through the OpenFaaS gateway.
type Platform struct {
	*kube.Session
	cfg Config
	gw  *Gateway

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
	_ platform.Fingerprinter   = (*Platform)(nil)
)

// New connects to the cluster and the gateway.
func New(ctx context.Context, pc platform.Config) (*Platform, error) {
	cfg, err := ParseConfig(pc.RunID, pc.Options)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg)
}

// Open is New with a parsed configuration.
func Open(ctx context.Context, cfg Config) (*Platform, error) {
	s, err := kube.OpenSession(ctx, cfg.Common, nil, nil)
	if err != nil {
		return nil, err
	}
	p := &Platform{Session: s, cfg: cfg,
		gw: &Gateway{URL: cfg.GatewayURL, User: cfg.Username, Password: password(), HTTP: &http.Client{Timeout: 60 * time.Second}}}
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
	return p, nil
}

// Name implements platform.Platform.
func (p *Platform) Name() string { return Name }

// SecretsMountPath is where faas-netes mounts a function's secrets, a file
// per key (faas-netes pkg/k8s/secrets.go).
const SecretsMountPath = "/var/openfaas/secrets"

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
	switch s.Watchdog {
	case "classic":
		// The classic watchdog forks fprocess per request.
	default:
		env["mode"] = strings.TrimPrefix(s.Watchdog, "of-")
		if s.Watchdog == "of-http" {
			env["upstream_url"] = "http://127.0.0.1:" + strconv.Itoa(UpstreamPort)
			env["FB_HOST"], env["FB_PORT"] = "127.0.0.1", strconv.Itoa(UpstreamPort)
		}
	}
	if fn.Concurrency > 0 {
		env["max_inflight"] = strconv.Itoa(fn.Concurrency)
	}
	for k, v := range s.Timeouts {
		env[k] = v
	}
	// The OpenFaaS image: the workload's server behind the of-watchdog
	// (workloads/<w>/<lang>/Dockerfile.openfaas).
	d := FunctionDeployment{Service: fn.Name, Image: c.Image(fn.Workload, fn.Language+"-openfaas", s.Image), Namespace: ns, EnvVars: env, Labels: &labels}
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

// Deploy implements platform.Platform: create or update through the
// gateway, then wait for the replicas.
func (p *Platform) Deploy(ctx context.Context, fn platform.Function) error {
	s, err := ParseSettings(fn)
	if err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
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
	case httpapi.IsStatus(err, http.StatusNotFound):
		if err = p.PutEnvSecret(ctx, fn); err == nil {
			err = p.gw.Deploy(ctx, d)
		}
	}
	if err != nil {
		return fmt.Errorf("deploy %s: %w", fn.Name, err)
	}
	return p.WaitReplicas(ctx, fn.Name, wanted(fn, s))
}

// Scale implements platform.Platform through /system/scale-function.
func (p *Platform) Scale(ctx context.Context, name string, replicas int) error {
	if replicas < 0 {
		return fmt.Errorf("scale %s: replicas %d is negative", name, replicas)
	}
	if err := p.gw.Scale(ctx, name, p.Namespace(), replicas); err != nil {
		return err
	}
	return p.WaitReplicas(ctx, name, replicas)
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

// MakeCold implements platform.ColdStarter: scale to zero through the
// gateway and wait until no pod is left; the gateway then holds the next
// request until a new pod is ready (scale from zero).
func (p *Platform) MakeCold(ctx context.Context, name string) (string, error) {
	t0 := time.Now()
	if err := p.Scale(ctx, name, 0); err != nil {
		return "", err
	}
	return fmt.Sprintf("scaled to 0 through the gateway in %s; the gateway scales from zero on the next request", time.Since(t0).Round(time.Millisecond)), nil
}

// Fingerprint implements platform.Fingerprinter: the cluster, the
// gateway's /system/info, the OpenFaaS components and the gateway's
// settings (its environment: timeouts, scale from zero, direct functions).
func (p *Platform) Fingerprint(ctx context.Context) (map[string]any, error) {
	f := p.Session.Fingerprint(ctx, Name, p.cfg.OpenFaaSNamespace)
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
	return p.Session.Remove(ctx, name)
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
