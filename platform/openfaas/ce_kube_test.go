//go:build kube

package openfaas_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform"
)

// OpenFaaS CE refuses, at once and in the platform's words, what its gateway
// and faas-netes refuse or clamp: scaling labels, more than 5 replicas, 0
// replicas, another namespace, a private image. Nothing waits out a timeout.
func TestCERefusesWhatCERefuses(t *testing.T) {
	p, g, ctx := open(t, "of-ce", true)
	defer p.Close(context.Background())
	t0 := time.Now()
	for want, fn := range map[string]platform.Function{
		"settings.scale_zero: com.openfaas.scale.zero not available for Community Edition": {Name: "a", Workload: "hello", Language: "go",
			Settings: map[string]string{"scale_min": "1", "scale_max": "3", "scale_zero": "true"}},
		"settings.scale_type":                     {Name: "b", Workload: "hello", Language: "go", Settings: map[string]string{"scale_min": "1", "scale_max": "3", "scale_type": "rps"}},
		"settings.scale_max: 6":                   {Name: "c", Workload: "hello", Language: "go", Settings: map[string]string{"scale_min": "1", "scale_max": "6"}},
		"replicas: 8: OpenFaaS CE runs at most 5": {Name: "d", Workload: "hello", Language: "go", Replicas: 8},
	} {
		err := p.Deploy(ctx, fn)
		if err == nil || !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want refused saying %q", fn.Name, err, want)
		}
	}
	if calls := systemCalls(g); strings.Contains(calls, "/system/functions") {
		t.Errorf("a refused function reached the gateway: %s", calls)
	}
	fn := platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 1}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 6} {
		if err := p.Scale(ctx, "hello-go", n); err == nil || !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "between 1 and 5") {
			t.Errorf("scale to %d: %v", n, err)
		}
	}
	// The gateway's own 400 (a private image, which only faas-netes can tell) is the user's error too.
	g.private = func(image string) bool { return strings.Contains(image, "private") }
	err := p.Deploy(ctx, platform.Function{Name: "priv", Workload: "hello", Language: "go", Replicas: 1, Settings: map[string]string{"image": "registry.example/private/hello:1"}})
	if err == nil || !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "only allows public images") {
		t.Errorf("private image: %v", err)
	}
	if d := time.Since(t0); d > 50*time.Second {
		t.Logf("refusals took %s", d) // no assertion on time: the ready timeout is 60 s
	}
	// Another namespace: refused when the platform opens.
	_, _, _, err = tryOpen(t, "of-ns", setup{secret: true, scaleFromZero: "true", options: map[string]any{"namespace": "elsewhere-fn"}})
	if err == nil || !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "OpenFaaS CE serves functions only in") {
		t.Errorf("another namespace: %v", err)
	}
}

// The stand-in does what CE's faas-netes does to a function's Deployment,
// whoever scales it (pkg/handlers/informers.go applyValidation): 0 becomes
// 1 and more than 5 becomes 5. So a cold start that scales the Deployment to
// 0 through the Kubernetes API and waits for zero (the adapter's CE path of
// before) would wait for ever. Seen failing without the stand-in's informer.
func TestCEKeepsEveryFunctionBetweenOneAndFive(t *testing.T) {
	p, _, ctx := open(t, "of-validation", true)
	defer p.Close(context.Background())
	if err := p.Deploy(ctx, platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 2}); err != nil {
		t.Fatal(err)
	}
	deps := p.Cluster.Client.AppsV1().Deployments(p.Namespace())
	for _, c := range []struct{ set, want int32 }{{0, 1}, {7, 5}} {
		if err := p.Cluster.ScaleDeployment(ctx, p.Namespace(), "hello-go", int(c.set)); err != nil {
			t.Fatal(err)
		}
		var got int32 = -1
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			d, err := deps.Get(ctx, "hello-go", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got = *d.Spec.Replicas; got == c.want {
				break
			}
		}
		if got != c.want {
			t.Errorf("the Deployment scaled to %d through the Kubernetes API stays at %d, want %d (CE's faas-netes)", c.set, got, c.want)
		}
	}
}

// Without the gateway's scale_from_zero, CE cannot start a pod on a request:
// MakeCold replaces the pods before the call and says the start-up is not
// on it; the coldstart kind then reports first-request samples.
func TestCEColdWithoutScaleFromZero(t *testing.T) {
	p, g, ctx := openWith(t, "of-nozero", setup{secret: true, scaleFromZero: "false"})
	defer p.Close(context.Background())
	if err := p.Deploy(ctx, platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 2}); err != nil {
		t.Fatal(err)
	}
	before := podNames(ctx, t, p, "hello-go")
	cold, err := p.MakeCold(ctx, "hello-go")
	if err != nil || cold.OnPath || !strings.Contains(cold.How, "not on the request") {
		t.Fatalf("%+v %v", cold, err)
	}
	after := podNames(ctx, t, p, "hello-go")
	if len(after) != 2 || slices.ContainsFunc(after, func(n string) bool { return slices.Contains(before, n) }) {
		t.Errorf("pods before %v after %v", before, after)
	}
	if strings.Contains(systemCalls(g), "scale-function") {
		t.Errorf("MakeCold asked the CE gateway to scale: %s", systemCalls(g))
	}
}
