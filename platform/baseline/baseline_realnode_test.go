//go:build realnode

package baseline_test

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/baseline"
	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
)

// These tests run on the real node (deploy/node/test.sh): real pods of images built by
// faasbench's image builder and imported into the node's containerd, a real Service through
// kube-proxy's iptables rules, and the kubelet's own stats. They run inside the node's network
// namespace, where the pod and service addresses exist.

// openReal opens the baseline for the node's local images (image_tag local, pull_policy Never) behind
// ClusterIP Services; extra options override.
func openReal(t *testing.T, run string, extra map[string]any) (*baseline.Platform, context.Context) {
	t.Helper()
	o := map[string]any{"ready_timeout": "90s", "image_tag": "local", "pull_policy": "Never", "service_type": "ClusterIP"}
	maps.Copy(o, extra)
	p, ctx := openOn(t, run, 4*time.Minute, o)
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p, ctx
}

type reply struct {
	instance, cold, body string
	status               int
}

func get(t *testing.T, c *http.Client, url string) reply {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{instance: resp.Header.Get("X-Fb-Instance"), cold: resp.Header.Get("X-Fb-Cold"), body: string(b), status: resp.StatusCode}
}

func podNames(ctx context.Context, t *testing.T, p *baseline.Platform, fn string) []string {
	return kubetest.LivePods(ctx, t, p.Cluster, p.Cluster.Namespace, p.Selector(fn))
}

// A Deployment of the Go image scaled 0→3→0 on the real node: every pod serves, the Service spreads
// connections (not requests) over the pods, the kubelet reports each pod's CPU and memory, a forced
// cold start lands on a pod the watcher saw start, and scaling to zero leaves no pod.
func TestRealNodeScaleServeAndSample(t *testing.T) {
	p, ctx := openReal(t, "realnode:1", nil)
	fn := platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 0}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	var figures []string
	step := func(n int) time.Duration {
		t0 := time.Now()
		if err := p.Scale(ctx, fn.Name, n); err != nil {
			t.Fatalf("scale to %d: %v", n, err)
		}
		d := time.Since(t0)
		figures = append(figures, fmt.Sprintf("→%d %.2f s", n, d.Seconds()))
		return d
	}
	step(1)
	step(0)
	step(3)
	pods := podNames(ctx, t, p, fn.Name)
	if len(pods) != 3 {
		t.Fatalf("after scaling to 3: pods %v", pods)
	}

	// Every pod serves, called directly; the contract's instance header is the pod's name.
	direct, err := p.DirectEndpoints(ctx, fn.Name)
	if err != nil || len(direct) != 3 {
		t.Fatalf("direct endpoints %v %v", direct, err)
	}
	plain := &http.Client{Timeout: 5 * time.Second}
	var served []string
	for _, u := range direct {
		r := get(t, plain, u)
		if r.status != 200 || r.body != "pong" {
			t.Errorf("direct %s: %d %q", u, r.status, r.body)
		}
		served = append(served, r.instance)
	}
	sort.Strings(served)
	if !slices.Equal(served, pods) {
		t.Errorf("pods answering directly %v, want every pod %v", served, pods)
	}

	// Through the ClusterIP Service: kube-proxy picks a pod per connection.
	ep, err := p.Endpoint(ctx, fn.Name)
	if err != nil || !strings.HasPrefix(ep, "http://"+fn.Name+"."+p.Cluster.Namespace+".svc.cluster.local:") {
		t.Fatalf("endpoint %q %v: want the Service's cluster DNS name", ep, err)
	}
	if addrs, err := net.LookupHost(fn.Name + "." + p.Cluster.Namespace + ".svc.cluster.local"); err != nil || len(addrs) != 1 || !strings.HasPrefix(addrs[0], "10.251.") {
		t.Fatalf("the cluster's DNS gives %v %v: want the Service's ClusterIP in 10.251.0.0/24", addrs, err)
	}
	fresh := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	share := map[string]int{}
	const conns = 90
	for range conns {
		share[get(t, fresh, ep).instance]++
	}
	t.Logf("share of %d new connections through the Service: %v", conns, share)
	for _, pod := range pods {
		if share[pod] == 0 {
			t.Errorf("pod %s got none of %d connections through the Service: %v", pod, conns, share)
		}
	}
	kept := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	one := map[string]int{}
	for range 30 {
		one[get(t, kept, ep).instance]++
	}
	if len(one) != 1 {
		t.Errorf("30 requests on one kept-alive connection reached %d pods (%v): a ClusterIP balances per connection", len(one), one)
	}

	// The kubelet's Summary API: cumulative CPU and working set of each pod.
	sampler, warns, err := p.Cluster.NewSampler(kube.SamplerOptions{SelectorOf: p.Selector})
	if err != nil || sampler == nil || sampler.Source() != kube.SourceKubelet {
		t.Fatalf("sampler %v %v %v: want the kubelet's summary on a real node", sampler, warns, err)
	}
	var fu platform.FunctionUsage
	for deadline := time.Now().Add(40 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		if fu, err = sampler.SampleResources(ctx, fn.Name); err == nil && len(fu.Instances) == 3 {
			break
		}
	}
	if err != nil || len(fu.Instances) != 3 {
		t.Fatalf("usage %+v %v", fu, err)
	}
	for _, iu := range fu.Instances {
		if iu.CPUNs <= 0 || iu.MemoryBytes <= 0 || !slices.Contains(pods, iu.Instance) {
			t.Errorf("usage of %+v: want a pod's CPU time and memory", iu)
		}
	}
	t.Logf("kubelet usage: %+v", fu.Instances)
	// The node's own figures (the studies' per-node CPU and memory).
	hosts, err := sampler.SampleHosts(ctx)
	if err != nil || len(hosts) != 1 {
		t.Fatalf("hosts %+v %v: want the real node", hosts, err)
	}
	if h := hosts[0]; h.CPUs < 1 || h.CPUNs <= 0 || h.MemoryBytes <= 0 || h.MemoryTotalBytes < h.MemoryBytes {
		t.Errorf("node figures %+v: want capacity, CPU time and memory", h)
	}

	// A forced cold start: new pods, and the first request lands on one the watcher saw start.
	t0 := time.Now()
	how, err := p.MakeCold(ctx, fn.Name)
	if err != nil {
		t.Fatal(err)
	}
	started, err := p.StartedSince(ctx, fn.Name, t0)
	if err != nil || len(started) < 1 {
		t.Fatalf("started since the cold start: %v %v", started, err)
	}
	r := get(t, fresh, ep)
	var ids []string
	for _, s := range started {
		ids = append(ids, s.ID)
		if !s.Started.After(t0) || (s.Ready.IsZero() || s.Ready.Before(s.Started)) {
			t.Errorf("started %+v: want started after %v and ready after that", s, t0)
		}
	}
	if !slices.Contains(ids, r.instance) || slices.Contains(pods, r.instance) || r.cold != "1" {
		t.Errorf("first call after %+v answered by %q (cold %q); new pods %v, old %v", how, r.instance, r.cold, ids, pods)
	}

	d := step(0)
	if left := podNames(ctx, t, p, fn.Name); len(left) != 0 {
		t.Errorf("after scaling to 0 (%v): pods %v", d, left)
	}
	t.Logf("pod start figures (Scale returns when the pods are Ready or gone): %s", strings.Join(figures, ", "))
}

// The Python image (a Debian root file system from mmdebstrap) runs and serves on the real node.
func TestRealNodePython(t *testing.T) {
	p, ctx := openReal(t, "realnode:2", nil)
	t0 := time.Now()
	if err := p.Deploy(ctx, platform.Function{Name: "hello-python", Workload: "hello", Language: "python", Replicas: 1}); err != nil {
		t.Fatal(err)
	}
	ready := time.Since(t0)
	ep, err := p.Endpoint(ctx, "hello-python")
	if err != nil {
		t.Fatal(err)
	}
	r := get(t, &http.Client{Timeout: 5 * time.Second}, ep)
	if r.status != 200 || r.body != "pong" || r.instance != podNames(ctx, t, p, "hello-python")[0] || r.cold != "1" {
		t.Errorf("hello-python: %+v", r)
	}
	t.Logf("hello-python deployed and Ready in %.2f s", ready.Seconds())
}

// A pod that never becomes ready fails the deploy with the pod's own reason and events, not a bare
// timeout: here an image the node does not have, with pull policy Never.
func TestRealNodeNeverReadySaysWhy(t *testing.T) {
	p, ctx := openReal(t, "realnode:3", map[string]any{"ready_timeout": "8s"})
	err := p.Deploy(ctx, platform.Function{Name: "absent", Workload: "hello", Language: "go", Replicas: 1,
		Settings: map[string]string{"image": "faasbench/not-built:local"}})
	if err == nil || !strings.Contains(err.Error(), "ErrImageNeverPull") || !strings.Contains(err.Error(), "event Warning") {
		t.Fatalf("deploy of an image the node lacks: %v", err)
	}
	t.Logf("the deploy's error: %v", err)
}

// The workloads that call a service work from real pods: query (seed 004's database function) against
// the project's MariaDB and fetch against faasbench upstream, both listening on the node's address
// inside its namespace (deploy/node/services.sh; their settings come from the environment).
func TestRealNodeQueryAndFetch(t *testing.T) {
	env := map[string]string{}
	for _, k := range []string{"FB_DB_HOST", "FB_DB_PORT", "FB_DB_USER", "FB_DB_PASSWORD", "FB_DB_NAME", "FB_UPSTREAM_URL"} {
		if env[k] = os.Getenv(k); env[k] == "" {
			t.Fatalf("%s is not set: run these tests with deploy/node/test.sh, which starts the node's services (deploy/node/services.sh)", k)
		}
	}
	p, ctx := openReal(t, "realnode:4", nil)
	cases := []struct {
		fn   platform.Function
		path string
		want string
	}{
		{platform.Function{Name: "query-python", Workload: "query", Language: "python", Replicas: 1, Env: map[string]string{
			"FB_DB_HOST": env["FB_DB_HOST"], "FB_DB_PORT": env["FB_DB_PORT"], "FB_DB_USER": env["FB_DB_USER"], "FB_DB_PASSWORD": env["FB_DB_PASSWORD"], "FB_DB_NAME": env["FB_DB_NAME"]},
			// The password reaches the pod through a Secret (the kubelet resolves the reference).
			SecretEnv: []string{"FB_DB_PASSWORD"}},
			"?delay=0.01", "slept 0.01"},
		{platform.Function{Name: "fetch-python", Workload: "fetch", Language: "python", Replicas: 1, Env: map[string]string{"FB_UPSTREAM_URL": env["FB_UPSTREAM_URL"]}},
			"?size=1024", "fetched 1024 bytes"},
	}
	for _, c := range cases {
		if err := p.Deploy(ctx, c.fn); err != nil {
			t.Fatal(err)
		}
		ep, err := p.Endpoint(ctx, c.fn.Name)
		if err != nil {
			t.Fatal(err)
		}
		r := get(t, &http.Client{Timeout: 10 * time.Second}, ep+c.path)
		if r.status != 200 || r.body != c.want {
			t.Errorf("%s: %d %q, want %q", c.fn.Name, r.status, r.body, c.want)
		}
	}
}
