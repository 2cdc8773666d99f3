package openfaas

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

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
		// The names the runtime may read from it (a file of another name never reaches the environment).
		names := slices.Sorted(slices.Values(fn.SecretEnv))
		env["FB_SECRETS"] = strings.Join(names, ",")
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
