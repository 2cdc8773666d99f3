//go:build kube

package openfaas_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
)

// bumpFirst makes the next n of faas-netes' writes conflict, as the Deployment controller's status
// write does on the real node, by writing the Deployment in the window between faas-netes' read and
// write; it counts the windows.
func bumpFirst(t *testing.T, g *gatewayStandIn, n int64) *atomic.Int64 {
	var seen atomic.Int64
	f := func(ctx context.Context, ns, name string) {
		if seen.Add(1) > n {
			return
		}
		patch := `{"metadata":{"annotations":{"faasbench.test/bump":"` + time.Now().Format(time.RFC3339Nano) + `"}}}`
		if _, err := g.cl.Client.AppsV1().Deployments(ns).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Errorf("bump %s/%s: %v", ns, name, err)
		}
	}
	g.interleave.Store(&f)
	return &seen
}

// faas-netes answers 200 to an update whose one write failed (update.go) and 500 to a scale whose one
// write failed (replica_updater.go); the adapter sends each again, a bounded number of times, and
// says so, where it took the 200 for done and kept the old pods (seen on the real node: the call
// after a "redeploy" reached an old pod).
func TestFaasNetesLostWrites(t *testing.T) {
	p, g, ctx := open(t, "of-lost", true)
	fn := platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 1, Env: map[string]string{"X": "1"}}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	deps := p.Cluster.Client.AppsV1().Deployments(p.Namespace())
	envX := func() string {
		d, err := deps.Get(ctx, fn.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range d.Spec.Template.Spec.Containers[0].Env {
			if e.Name == "X" {
				return e.Value
			}
		}
		return ""
	}

	// One lost write: sent again, it lands, and Deploy returns on the new pod.
	seen := bumpFirst(t, g, 1)
	old := kubetest.LivePods(ctx, t, p.Cluster, p.Namespace(), p.Selector(fn.Name))
	fn.Env = map[string]string{"X": "2"}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	if n := seen.Load(); n != 2 {
		t.Errorf("faas-netes wrote %d times, want 2 (one lost, one landed)", n)
	}
	if x := envX(); x != "2" {
		t.Errorf("after the redeploy X=%q, want 2", x)
	}
	if now := kubetest.LivePods(ctx, t, p.Cluster, p.Namespace(), p.Selector(fn.Name)); len(now) != 1 || slices.Contains(old, now[0]) {
		t.Errorf("after the redeploy: pods %v (before: %v), want one new pod", now, old)
	}
	if w := strings.Join(p.Warnings(), " "); !strings.Contains(w, "function hello-go: the gateway answered 1 PUT(s) of its update without faas-netes writing the Deployment") {
		t.Errorf("no warning of the lost update: %q", w)
	}

	// Every write lost: Deploy fails after its tries and says why, the template unchanged.
	seen = bumpFirst(t, g, 1000)
	fn.Env = map[string]string{"X": "3"}
	err := p.Deploy(ctx, fn)
	if err == nil || !strings.Contains(err.Error(), "the gateway answered each of 4 PUTs, but faas-netes never wrote the Deployment") {
		t.Errorf("every write lost: %v", err)
	}
	if n, x := seen.Load(), envX(); n != 4 || x != "2" {
		t.Errorf("every write lost: %d writes tried (want 4), X=%q (want 2)", n, x)
	}

	// A scale of an autoscaled function (through /system/scale-function): one 500 from a lost write,
	// sent again.
	g.interleave.Store(nil)
	auto := platform.Function{Name: "hello-auto", Workload: "hello", Language: "go", Settings: map[string]string{"scale_min": "1", "scale_max": "3"}}
	if err := p.Deploy(ctx, auto); err != nil {
		t.Fatal(err)
	}
	seen = bumpFirst(t, g, 1)
	if err := p.Scale(ctx, auto.Name, 2); err != nil {
		t.Fatalf("scale with one lost write: %v", err)
	}
	if d, err := deps.Get(ctx, auto.Name, metav1.GetOptions{}); err != nil || *d.Spec.Replicas != 2 || seen.Load() != 2 {
		t.Errorf("scale with one lost write: %v, writes %d", err, seen.Load())
	}
	seen = bumpFirst(t, g, 1000)
	if err := p.Scale(ctx, auto.Name, 3); err == nil || !strings.Contains(err.Error(), "4 tries") || !strings.Contains(err.Error(), "Unable to update function deployment hello-auto") {
		t.Errorf("scale with every write lost: %v", err)
	}
	if n := seen.Load(); n != 4 {
		t.Errorf("scale with every write lost: %d writes tried, want 4", n)
	}
	g.interleave.Store(nil)
}
