//go:build realnode

package knative_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/knative"
	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
)

// These tests run on real Knative Serving v0.42.2 on the real node (deploy/node/test.sh after
// deploy/knative/up.sh), inside the node's network namespace: Services become Ready through
// Kourier (net-kourier v1.15.1 from its pinned source, Envoy as its gateway), requests go through it with the function's
// host, revisions scale to zero and back through the activator.

func openKnative(t *testing.T, run string) (*knative.Platform, context.Context) {
	t.Helper()
	gw := os.Getenv("FB_KNATIVE_GATEWAY")
	if gw == "" {
		t.Fatal("FB_KNATIVE_GATEWAY is not set: run these tests with deploy/node/test.sh, which installs Knative (deploy/knative/up.sh)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	cfg, err := knative.ParseConfig(run, map[string]any{"kubeconfig": kubetest.Kubeconfig(t), "namespace": kubetest.Namespace(t),
		"ready_timeout": "120s", "cold_timeout": "150s", "image_tag": "local", "pull_policy": "Never", "gateway": gw})
	if err != nil {
		t.Fatal(err)
	}
	p, err := knative.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p, ctx
}

// hello in Go and Python through the Route (the ingress with the Service's host), directly at the
// revision's queue-proxy, a cold start from zero through the activator verified three ways (the
// activator was in the path, a pod the watcher saw created after the request was sent answered,
// and the function said it was its first request), and cleanup.
func TestRealKnativeRouteDirectAndColdStart(t *testing.T) {
	p, ctx := openKnative(t, "realknative:1")
	c := &http.Client{Timeout: 60 * time.Second}
	// The two languages side by side: most of each is the wait for Knative to scale to zero.
	for _, lang := range []string{"go", "python"} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			routeDirectAndCold(ctx, t, p, c, lang)
		})
	}
}

func routeDirectAndCold(ctx context.Context, t *testing.T, p *knative.Platform, c *http.Client, lang string) {
	name := "hello-" + lang
	t0 := time.Now()
	// replicas 0: autoscaled with min-scale 0; the shortest stable window Knative accepts.
	fn := platform.Function{Name: name, Workload: "hello", Language: lang, Replicas: 0, Settings: map[string]string{"window": "6s"}}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: Ready through the Route in %s", name, time.Since(t0).Round(time.Millisecond))
	url, err := p.Endpoint(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	host, err := p.FunctionHost(ctx, name)
	if err != nil || host != name+"."+p.Namespace()+".example.com" {
		t.Fatalf("host %q %v", host, err)
	}
	a := kubetest.Call(t, c, url, host)
	if a.Status != 200 || strings.TrimSpace(a.Body) != "pong" || a.Instance == "" {
		t.Fatalf("%s through the ingress: %d %q instance %q", name, a.Status, a.Body, a.Instance)
	}
	if wrong := kubetest.Call(t, c, url, "nobody."+p.Namespace()+".example.com"); wrong.Status != 404 {
		t.Errorf("an unknown host got %d, want the ingress's 404", wrong.Status)
	}
	direct, err := p.DirectEndpoints(ctx, name)
	if err != nil || len(direct) == 0 {
		t.Fatalf("direct endpoints %v %v", direct, err)
	}
	if d := kubetest.Call(t, c, direct[0], ""); d.Status != 200 || d.Instance == "" {
		t.Errorf("%s directly at %s: %d %q", name, direct[0], d.Status, d.Instance)
	}
	path, err := p.DataPath(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: data path %s", name, path)

	how, err := p.MakeCold(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %+v", name, how)
	if path, err := p.DataPath(ctx, name); err != nil || !strings.HasPrefix(path, "activator") {
		t.Errorf("scaled to zero, the data path is %q (%v): want the activator", path, err)
	}
	cold := kubetest.Call(t, c, url, host)
	if cold.Status != 200 || cold.Cold != "1" {
		t.Fatalf("%s cold: %d %q cold=%q", name, cold.Status, cold.Body, cold.Cold)
	}
	started, err := p.StartedSince(ctx, name, cold.Sent)
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, s := range started {
		if strings.HasPrefix(cold.Instance, s.ID) {
			seen = true
		}
	}
	if !seen {
		t.Errorf("%s: the cold answer came from %q, not from a pod started after the request was sent (%+v)", name, cold.Instance, started)
	}
	t.Logf("%s: cold start through the activator %s (first byte %s)", name, cold.Elapsed.Round(time.Millisecond), cold.FirstByte.Sub(cold.Sent).Round(time.Millisecond))
	if err := p.Remove(ctx, name); err != nil {
		t.Fatal(err)
	}
}

// Under a closed loop of 8 clients on a function that takes 200 ms, with a target of 1 request in
// flight per pod, Knative's autoscaler adds pods (the data path leaves the activator as they come).
func TestRealKnativeScalesOutUnderLoad(t *testing.T) {
	p, ctx := openKnative(t, "realknative:2")
	name := "sleep-go"
	fn := platform.Function{Name: name, Workload: "sleep", Language: "go", Replicas: 0,
		Settings: map[string]string{"target": "1", "max_scale": "4", "window": "6s"}}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, name)
	host, _ := p.FunctionHost(ctx, name)
	start := time.Now()
	var ok, failed atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(25 * time.Second)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Timeout: 30 * time.Second}
			for n := 0; n < 500 && time.Now().Before(deadline); n++ {
				req, _ := http.NewRequest(http.MethodGet, url+"?ms=200", nil)
				req.Host = host
				resp, err := c.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 {
					ok.Add(1)
				} else {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	evs, err := p.ReplicaEvents(ctx, name, start)
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	var firstAt time.Duration
	for _, e := range evs {
		if e.Ready > most {
			most = e.Ready
			if most >= 2 && firstAt == 0 {
				firstAt = e.At.Sub(start)
			}
		}
	}
	t.Logf("%d ok, %d failed; most ready pods %d (2 ready after %s)", ok.Load(), failed.Load(), most, firstAt.Round(time.Millisecond))
	if most < 2 || most > 4 {
		t.Errorf("most ready pods %d: want the autoscaler to add pods, up to max_scale 4", most)
	}
	if failed.Load() > 0 {
		t.Errorf("%d requests failed", failed.Load())
	}
	u, _ := p.Cluster.Client.CoreV1().Pods(p.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: p.Selector(name)})
	if len(u.Items) == 0 {
		t.Error("no pod of the function is left to sample")
	}
}

// Scaling a fixed-size function keeps its revision: the bounds go on the revision's
// PodAutoscaler, which Knative's revision reconciler leaves alone; Scale returns once the same
// revision serves with every replica, up and down, and the template (generation) is unchanged.
func TestRealKnativeScaleKeepsTheRevision(t *testing.T) {
	p, ctx := openKnative(t, "realknative:4")
	fn := platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 1}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{3, 1} {
		t0 := time.Now()
		if err := p.Scale(ctx, "hello-go", n); err != nil {
			t.Fatal(err)
		}
		t.Logf("scale to %d in place: %s", n, time.Since(t0).Round(time.Millisecond))
		revs, err := p.Cluster.Dynamic.Resource(knative.RevisionGVR).Namespace(p.Namespace()).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range revs.Items {
			names = append(names, r.GetName())
		}
		svc, err := p.Cluster.Dynamic.Resource(knative.ServiceGVR).Namespace(p.Namespace()).Get(ctx, "hello-go", metav1.GetOptions{})
		if err != nil || len(names) != 1 || names[0] != "hello-go-00001" || svc.GetGeneration() != 1 {
			t.Errorf("after scaling to %d: revisions %v, service generation %d (%v): want hello-go-00001 alone, generation 1", n, names, svc.GetGeneration(), err)
		}
		direct, err := p.DirectEndpoints(ctx, "hello-go")
		if err != nil || len(direct) != n {
			t.Errorf("direct endpoints after scaling to %d: %v %v", n, direct, err)
		}
		// Through the gateway (Kourier, and the activator while it is in the path), a call on a fresh
		// connection each, every pod answers from the first calls on: Knative needs no routing wait
		// after Scale (Kubeless's NodePort did: kube.WaitRouted). 60 calls miss one of 3 balanced pods
		// with a chance of 3·(2/3)^60, below 10^-10.
		url, err := p.Endpoint(ctx, "hello-go")
		if err != nil {
			t.Fatal(err)
		}
		host, err := p.FunctionHost(ctx, "hello-go")
		if err != nil {
			t.Fatal(err)
		}
		seen, failed, all := map[string]bool{}, 0, 0
		for i := 1; i <= 60; i++ {
			if a := gatewayCall(ctx, url, host); a == "" {
				failed++
			} else if seen[a] = true; len(seen) == n && all == 0 {
				all = i
			}
		}
		t.Logf("after scaling to %d: %d pods answered through the gateway, all %d by call %d, %d calls failed", n, len(seen), n, all, failed)
		if len(seen) != n || failed > 0 {
			t.Errorf("after scaling to %d: 60 calls through the gateway reached %d pods, %d failed", n, len(seen), failed)
		}
	}
	// Held: the autoscaler keeps the count with no traffic (min-scale on the PodAutoscaler).
	time.Sleep(10 * time.Second)
	if c := p.Session.Watch.Counts("hello-go"); c.Desired != 1 || c.Ready != 1 {
		t.Errorf("10 s after scaling to 1 with no traffic: %+v", c)
	}
}

// The webhook's refusals reach the user as errors naming the setting Knative refused; the
// fingerprint names the ingress and the digests the kubelet runs.
func TestRealKnativeWebhookRefusalsAndFingerprint(t *testing.T) {
	p, ctx := openKnative(t, "realknative:3")
	f, err := p.Fingerprint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f["ingress_class"] != "kourier.ingress.networking.knative.dev" {
		t.Errorf("ingress class %v", f["ingress_class"])
	}
	comps, _ := f["components"].([]kube.Component)
	gateway, _ := f["ingress_components"].([]kube.Component)
	digests := 0
	for _, c := range append(append([]kube.Component{}, comps...), gateway...) {
		if strings.HasPrefix(c.ImageID, "sha256:") || strings.Contains(c.ImageID, "@sha256:") {
			digests++
		}
	}
	// Serving's four, Kourier's controller beside them; Kourier's gateway in its own namespace.
	if len(comps) != 5 || len(gateway) != 1 || gateway[0].Deployment != "3scale-kourier-gateway" || digests != 6 {
		t.Errorf("components %+v, ingress components %+v: want Serving's and Kourier's, each with its digest", comps, gateway)
	}
	// config-defaults' container-concurrency-max-limit (1000 unless the cluster says otherwise)
	// is the cluster's, so only the webhook knows it (knative.dev/serving v0.42.2
	// pkg/apis/serving/metadata_validation.go, ValidateContainerConcurrency). up.sh allows
	// initial-scale 0 (allow-zero-initial-scale, for kind coldrate), so that refusal is no
	// longer the cluster's to make.
	fn := platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 0, Concurrency: 1001}
	err = p.Deploy(ctx, fn)
	t.Logf("containerConcurrency 1001: %v", err)
	if !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "containerConcurrency") || !strings.Contains(err.Error(), "1000") {
		t.Errorf("containerConcurrency 1001 above the cluster's limit of 1000: %v", err)
	}
}

// gatewayCall calls a function through the Knative gateway (url, with the function's host) on a
// connection of its own and returns the instance that answered 200, "" for any failure.
func gatewayCall(ctx context.Context, url, host string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return ""
	}
	req.Host = host
	resp, err := (&http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return ""
	}
	return resp.Header.Get("X-Fb-Instance")
}
