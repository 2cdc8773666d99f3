//go:build realnode

package openfaas_test

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
	"github.com/faasbench/faasbench/platform/openfaas"
)

// These tests run on OpenFaaS of 2022-10 as its own chart installs it on the real node (deploy/node/test.sh
// after deploy/openfaas/up.sh): the real gateway with basic auth, faas-netes as its provider, the basic-auth
// plugin, Prometheus and AlertManager, all built from their pinned source or the module proxy, inside the
// node's network namespace. The function images run faasbench's functions behind the pinned of-watchdog.

func openOpenFaaS(t *testing.T, run string) (*openfaas.Platform, context.Context) {
	return openRealWith(t, run, nil)
}

// openRealWith opens the adapter on the node's OpenFaaS with the options of these tests, overridden by
// those given.
func openRealWith(t *testing.T, run string, opts map[string]any) (*openfaas.Platform, context.Context) {
	t.Helper()
	gw := os.Getenv("FB_OPENFAAS_GATEWAY")
	if gw == "" {
		t.Fatal("FB_OPENFAAS_GATEWAY is not set: run these tests with deploy/node/test.sh, which installs OpenFaaS (deploy/openfaas/up.sh)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	// No password in the environment: the adapter reads the chart's basic-auth secret, as it would on a
	// user's cluster.
	o := map[string]any{"kubeconfig": kubetest.Kubeconfig(t), "ready_timeout": "120s",
		"image_tag": "local", "pull_policy": "Never", "gateway_url": gw, "edition": "ce-2022"}
	maps.Copy(o, opts)
	cfg, err := openfaas.ParseConfig(run, o)
	if err != nil {
		t.Fatal(err)
	}
	p, err := openfaas.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p, ctx
}

// hello in Go and Python deployed through the real gateway (basic auth, the password from the chart's
// secret), scaled 1 → 3 through /system/scale-function, called through the gateway (the three pods share the
// calls) and straight at each pod, a cold start from zero (scaled to 0 through the gateway; the gateway's
// scale_from_zero holds the call) verified by the pod watch and the function's own flag, a redeploy through
// PUT that waits for the new pods, and removal.
func TestRealOpenFaaSDeployScaleColdStartRedeploy(t *testing.T) {
	p, ctx := openOpenFaaS(t, "realopenfaas:1")
	c := &http.Client{Timeout: 90 * time.Second}
	for _, lang := range []string{"go", "python"} {
		name := "hello-" + lang
		t0 := time.Now()
		fn := platform.Function{Name: name, Workload: "hello", Language: lang, Replicas: 1}
		if err := p.Deploy(ctx, fn); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: deployed and answering through the gateway in %s", name, time.Since(t0).Round(time.Millisecond))
		url, err := p.Endpoint(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if a := kubetest.Call(t, c, url, ""); a.Status != 200 || strings.TrimSpace(a.Body) != "pong" || a.Instance == "" {
			t.Fatalf("%s through the gateway: %d %q instance %q", name, a.Status, a.Body, a.Instance)
		}
		t1 := time.Now()
		if err := p.Scale(ctx, name, 3); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: scaled 1 → 3 in %s", name, time.Since(t1).Round(time.Millisecond))
		direct, err := p.DirectEndpoints(ctx, name)
		if err != nil || len(direct) != 3 {
			t.Fatalf("direct endpoints %v %v", direct, err)
		}
		pods := map[string]bool{}
		for _, d := range direct {
			a := kubetest.Call(t, c, d, "")
			if a.Status != 200 || a.Instance == "" || pods[a.Instance] {
				t.Fatalf("%s straight at %s: %d %q instance %q", name, d, a.Status, a.Body, a.Instance)
			}
			pods[a.Instance] = true
		}
		share := map[string]int{}
		for i := 0; i < 60; i++ {
			a := kubetest.Call(t, c, url, "")
			if a.Status != 200 || !pods[a.Instance] {
				t.Fatalf("%s call %d through the gateway: %d %q from %q (pods %v)", name, i, a.Status, a.Body, a.Instance, pods)
			}
			share[a.Instance]++
		}
		if len(share) != 3 {
			t.Errorf("%s: 60 calls through the gateway reached %d of the 3 pods: %v", name, len(share), share)
		}
		t.Logf("%s: each pod's share of 60 calls through the gateway: %v", name, share)

		// OpenFaaS's own race, read in the pinned source: faas-netes (2022) makes a pod ready by the
		// of-watchdog's /_/health, which is healthy once the watchdog listens and its lock file is written
		// (pkg/watchdog.go, makeHealthHandler), not once the function's server behind it does; a request
		// the gateway sends then gets the watchdog's own 500 (executor/http_runner.go, X-OpenFaaS-Internal:
		// of-watchdog). A run counts it as a failed request; here a cold start that met it is made again,
		// at most three in all, and any other answer fails at once.
		var cold kubetest.Answer
		for attempt := 1; ; attempt++ {
			how, err := p.MakeCold(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %+v", name, how)
			cold = kubetest.Call(t, c, url, "")
			if cold.Status == 500 && cold.Internal == "of-watchdog" && cold.Instance == "" && attempt < 3 {
				t.Logf("%s from zero, attempt %d: the watchdog's own 500 (its function's server was not listening yet): again", name, attempt)
				continue
			}
			break
		}
		if cold.Status != 200 || cold.Cold != "1" {
			t.Fatalf("%s from zero: %d %q cold=%q (X-OpenFaaS-Internal %q)", name, cold.Status, cold.Body, cold.Cold, cold.Internal)
		}
		started, err := p.StartedSince(ctx, name, cold.Sent)
		if err != nil {
			t.Fatal(err)
		}
		seen := false
		for _, s := range started {
			seen = seen || strings.HasPrefix(cold.Instance, s.ID)
		}
		if !seen {
			t.Errorf("%s: the cold answer came from %q, not from a pod started after the call was sent (%+v)", name, cold.Instance, started)
		}
		t.Logf("%s: cold start from zero through the gateway %s", name, cold.Elapsed.Round(time.Millisecond))

		// A redeploy (PUT /system/functions) with another environment: Deploy returns once the new
		// pods serve, and every call after it reaches one of them.
		before := kubetest.LivePods(ctx, t, p.Cluster, p.Namespace(), p.Selector(name))
		fn.Env = map[string]string{"FB_REDEPLOY": "2"}
		t2 := time.Now()
		if err := p.Deploy(ctx, fn); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: redeployed through PUT in %s", name, time.Since(t2).Round(time.Millisecond))
		for i := 0; i < 10; i++ {
			a := kubetest.Call(t, c, url, "")
			for _, old := range before {
				if a.Status != 200 || strings.HasPrefix(a.Instance, old) {
					t.Fatalf("%s after the redeploy, call %d: %d from %q, an old pod (%v)", name, i, a.Status, a.Instance, before)
				}
			}
		}
		if err := p.Remove(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
}

// A wrong password is refused with the gateway's own words, before anything is deployed.
func TestRealOpenFaaSWrongPassword(t *testing.T) {
	t.Setenv(openfaas.PasswordEnv, "not-the-password")
	p, ctx := openOpenFaaS(t, "realopenfaas:2")
	err := p.Deploy(ctx, platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 1})
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("deploy with a wrong password: %v", err)
	}
	t.Logf("wrong password: %v", err)
}

// The studies' autoscaling, for real: under load, Prometheus' APIHighInvocationRate (over 5 calls/s through
// the gateway for 5 s) fires, AlertManager posts it to the gateway's /system/alert, and the gateway adds
// ceil(max × factor / 100) replicas (max 20, factor 20: + 4; handlers/alerthandler.go); once the load stops,
// the resolved alert takes the function back to its minimum. Bounded: the load runs until the scale-up is
// seen or 120 s pass, the scale-down is awaited for 120 s.
func TestRealOpenFaaSAlertManagerScales(t *testing.T) {
	p, ctx := openOpenFaaS(t, "realopenfaas:3")
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	name := "hello-go"
	if err := p.Deploy(ctx, platform.Function{Name: name, Workload: "hello", Language: "go", Replicas: 1,
		Settings: map[string]string{"scale_min": "1", "scale_max": "20"}}); err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, name)
	start := time.Now()
	var ok, failed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Timeout: 10 * time.Second}
			for n := 0; n < 100000; n++ {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond): // about 100 calls/s in all: well over the rule's 5
				}
				resp, err := c.Get(url)
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
	steps := func() []int {
		evs, err := p.ReplicaEvents(ctx, name, start)
		if err != nil {
			t.Fatal(err)
		}
		return kubetest.DesiredSteps(evs)
	}
	var up time.Duration
	for deadline := time.Now().Add(120 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		if d := steps(); len(d) > 0 && d[len(d)-1] > 1 {
			up = time.Since(start)
			break
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("under load: %d calls answered 200, %d failed; desired replicas %v", ok.Load(), failed.Load(), steps())
	if up == 0 {
		t.Fatalf("no scale-up in 120 s of load (desired %v)", steps())
	}
	if d := steps(); d[0] != 5 {
		t.Errorf("the first alert took the function to %d replicas, want 1 + ceil(20 × 20 / 100) = 5 (desired %v)", d[0], d)
	}
	t.Logf("scale-up by AlertManager's alert %s after the load began", up.Round(time.Millisecond))
	var down time.Duration
	for deadline := time.Now().Add(120 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		if d := steps(); d[len(d)-1] == 1 {
			down = time.Since(start) - up
			break
		}
	}
	if down == 0 {
		t.Fatalf("the function was not back at its minimum 120 s after the load stopped (desired %v)", steps())
	}
	t.Logf("back to 1 replica (the resolved alert) %s after the scale-up; desired replicas %s", down.Round(time.Millisecond), fmt.Sprint(steps()))
}

// An image the node's registry does not have fails the deploy within the ready timeout with the pull's
// own words (the registry's "not found"), and removing it leaves nothing.
func TestRealOpenFaaSMissingImageSaysWhy(t *testing.T) {
	p, ctx := openRealWith(t, "realopenfaas:4", map[string]any{"ready_timeout": "20s", "image_tag": "no-such-tag"})
	err := p.Deploy(ctx, platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 1})
	// faas-netes gives functions IfNotPresent (deploy/openfaas/values.yaml): the node looks in its own
	// registry, which has no such tag, and the deploy's error carries the pull's own words.
	if err == nil || !strings.Contains(err.Error(), "ErrImagePull") && !strings.Contains(err.Error(), "ImagePullBackOff") ||
		!strings.Contains(err.Error(), "hello-go-openfaas:no-such-tag: not found") {
		t.Errorf("deploy of an image the node's registry does not have: %v", err)
	}
	t.Logf("missing image: %v", err)
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if left := kubetest.LivePods(ctx, t, p.Cluster, p.Namespace(), p.Selector("hello-go")); len(left) != 0 {
		t.Errorf("pods left after close: %v", left)
	}
}

// A gateway that does not answer (nothing listens at the address) fails the deploy at once with the
// address and the connection's own words, and nothing is left.
func TestRealOpenFaaSGatewayDown(t *testing.T) {
	p, ctx := openRealWith(t, "realopenfaas:5", map[string]any{"gateway_url": "http://127.0.0.1:1"})
	err := p.Deploy(ctx, platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 1})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("deploy through a gateway that is down: %v", err)
	}
	t.Logf("gateway down: %v", err)
	if left := kubetest.LivePods(ctx, t, p.Cluster, p.Namespace(), p.Selector("hello-go")); len(left) != 0 {
		t.Errorf("pods: %v", left)
	}
}

// Every image FB_REALNODE_OPENFAAS_IMAGES names ("workload:language ..."; deploy/node/test.sh gives the
// hello images, make test-real-openfaas every one it built from the workloads' Dockerfile.openfaas, the
// pinned of-watchdog in each) deployed through the
// real gateway and answering its workload's probe through it with the function's own reply.
func TestRealOpenFaaSEveryImage(t *testing.T) {
	list := strings.Fields(os.Getenv("FB_REALNODE_OPENFAAS_IMAGES"))
	if len(list) == 0 {
		t.Fatal("FB_REALNODE_OPENFAAS_IMAGES is empty: deploy/node/test.sh sets it to the images it imported, make test-real-openfaas to all")
	}
	p, ctx := openOpenFaaS(t, "realopenfaas:6")
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute+time.Duration(len(list))*40*time.Second)
	defer cancel()
	kubetest.EveryImage(ctx, t, p, list)
}
