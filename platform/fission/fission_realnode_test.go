//go:build realnode

package fission_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/fission"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
)

// These tests run on Fission v1.27.0 as its own chart installs it on the real node (deploy/fission/node-test.sh
// after deploy/fission/up.sh): its executor, router and the rest built from the pinned source, in the node's
// network namespace. The node serves no metrics.k8s.io (no metrics-server).

// openFission opens the adapter on the node's Fission with the options of examples/realnode/fission-hello.yaml,
// overridden by those given.
func openFission(t *testing.T, run string, opts map[string]any) (*fission.Platform, error) {
	t.Helper()
	router := os.Getenv("FB_FISSION_ROUTER")
	if router == "" {
		t.Fatal("FB_FISSION_ROUTER is not set: run these tests with deploy/fission/node-test.sh, which installs Fission (deploy/fission/up.sh)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := map[string]any{"kubeconfig": kubetest.Kubeconfig(t), "image_tag": "local", "pull_policy": "IfNotPresent",
		"ready_timeout": "120s", "router_url": router}
	maps.Copy(o, opts)
	cfg, err := fission.ParseConfig(platform.Config{RunID: run, Options: o})
	if err != nil {
		t.Fatal(err)
	}
	p, err := fission.Open(ctx, cfg)
	if err == nil {
		t.Cleanup(func() { _ = p.Close(context.Background()) })
	}
	return p, err
}

// A function asking Fission's HPA to scale it on CPU (settings.target_cpu) is refused before anything is made,
// on a cluster that serves no metrics.k8s.io: there the HPA Fission makes for it would never scale (it reads the
// pods' CPU from that API), and the run would measure fixed replicas under an autoscaling label. Before #59 the
// function was deployed.
func TestRealFissionTargetCPURefusedWithoutMetricsAPI(t *testing.T) {
	p, err := openFission(t, "realfission:hpa", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Cluster.Client.Discovery().ServerResourcesForGroupVersion("metrics.k8s.io/v1beta1"); err == nil {
		t.Fatal("the node serves metrics.k8s.io: this test needs a cluster without it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	fn := platform.Function{Name: "hello-go-hpa", Workload: "hello", Language: "go", Replicas: 1,
		Settings: map[string]string{"executor": "newdeploy", "min_scale": "1", "max_scale": "3", "target_cpu": "50", "grace_period": "2"}}
	err = p.Deploy(ctx, fn)
	t.Cleanup(func() { _ = p.Remove(context.Background(), fn.Name) })
	if !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "metrics.k8s.io") || !strings.Contains(err.Error(), "settings.target_cpu") {
		t.Fatalf("Deploy with target_cpu on a node without metrics.k8s.io: %v; want a refusal naming settings.target_cpu and metrics.k8s.io", err)
	}
	fns, lerr := p.Cluster.Dynamic.Resource(fission.FunctionGVR).Namespace(p.Namespace()).List(ctx, metav1.ListOptions{})
	if lerr != nil {
		t.Fatal(lerr)
	}
	for _, f := range fns.Items {
		if f.GetName() == fn.Name {
			t.Errorf("the refused function's Fission Function %s/%s was made", p.Namespace(), f.GetName())
		}
	}
	t.Logf("refused: %v", err)
}

// On Fission installed with the chart's functionNamespace (deploy/fission/up.sh with
// FISSION_FUNCTION_NAMESPACE; deploy/fission/node-test.sh installs it so a second time for this test alone), the
// pods of functions in namespace default are made in that namespace (pkg/utils/namespace.go GetFunctionNS), where
// a run watching default would wait for pods that never come there: a run in default is refused when the platform
// opens, naming the executor's setting. Before #59 it was opened, and each deploy timed out.
func TestRealFissionFunctionNamespaceRefused(t *testing.T) {
	moved := os.Getenv("FB_FISSION_FUNCTION_NAMESPACE")
	if moved == "" {
		t.Fatal("FB_FISSION_FUNCTION_NAMESPACE is not set: run this test with deploy/fission/node-test.sh, which installs Fission with it")
	}
	_, err := openFission(t, "realfission:fnns", map[string]any{"namespace": "default"})
	if !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "FISSION_FUNCTION_NAMESPACE") || !strings.Contains(err.Error(), `"`+moved+`"`) {
		t.Fatalf("a run in namespace default on Fission with functionNamespace %s: %v; want a refusal naming FISSION_FUNCTION_NAMESPACE and %q", moved, err, moved)
	}
	t.Logf("refused: %v", err)
}
