//go:build kube

package kubeless_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
	"github.com/faasbench/faasbench/platform/kubeless"
	"github.com/faasbench/faasbench/workloads"
)

func open(t *testing.T, run string) (*kubeless.Platform, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	// The stand-in controller is one that could run on this control plane's Kubernetes (1.34): a
	// patched one (the archived release exits there: TestArchivedKubelessRefusedOnKubernetes122).
	cfg, err := kubeless.ParseConfig(run, map[string]any{"kubeconfig": kubetest.Kubeconfig(t), "namespace": kubetest.Namespace(t), "ready_timeout": "60s",
		"patched_controller": "true"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := kubeless.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	kubetest.Apply(t, p.Cluster, "../../deploy/kubeless/crd.yaml")
	kubelessStandIn(ctx, t, p.Cluster)
	return p, ctx
}

// Every workload × language becomes a Function the API server accepts
// under strict field validation; a misspelt field is refused.
func TestFunctionsPassTheSchema(t *testing.T) {
	cl := kubetest.Cluster(t)
	kubetest.Apply(t, cl, "../../deploy/kubeless/crd.yaml")
	cat, err := workloads.Load("../../workloads")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := kubeless.ParseConfig("schema", nil)
	fns := cl.Dynamic.Resource(kubeless.FunctionGVR).Namespace(cl.Namespace)
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"}
	n := 0
	for _, w := range cat.Names() {
		wl, _ := cat.Get(w)
		for _, lang := range wl.Languages {
			fn := platform.Function{Name: w + "-" + lang, Workload: w, Language: lang, Replicas: 2, MemoryMB: 256, CPUs: 1}
			s, err := kubeless.ParseSettings(fn)
			if err != nil {
				t.Fatal(err)
			}
			u, _ := cfg.Function(cl.Namespace, fn, s)
			if _, err := fns.Create(context.Background(), u, dry); err != nil {
				t.Errorf("%s: %v", fn.Name, err)
			}
			n++
		}
	}
	fn := platform.Function{Name: "typo", Workload: "hello", Language: "go", Replicas: 1}
	s, _ := kubeless.ParseSettings(fn)
	u, _ := cfg.Function(cl.Namespace, fn, s)
	u.Object["spec"].(map[string]any)["runtme"] = "go1.14"
	if _, err := fns.Create(context.Background(), u, dry); err == nil || !strings.Contains(err.Error(), "runtme") {
		t.Errorf("a misspelt field was accepted: %v", err)
	}
	t.Logf("%d Kubeless Functions validated", n)
}

func TestDeployScaleEndpointAndCleanUp(t *testing.T) {
	p, ctx := open(t, "kl-run")
	cl := p.Cluster
	start := time.Now()
	if err := p.Deploy(ctx, platform.Function{Name: "hello-python", Workload: "hello", Language: "python", Replicas: 2}); err != nil {
		t.Fatal(err)
	}
	d, err := cl.Client.AppsV1().Deployments(cl.Namespace).Get(ctx, "hello-python", metav1.GetOptions{})
	if err != nil || d.Spec.Template.Spec.Containers[0].Image != "faasbench/hello-python:latest" || d.Spec.Template.Labels["faasbench.dev/run-id"] != "kl-run" {
		t.Fatalf("deployment %v %v", d, err)
	}
	for _, n := range []int{4, 0, 1} {
		if err := p.Scale(ctx, "hello-python", n); err != nil {
			t.Fatal(err)
		}
	}
	evs, _ := p.ReplicaEvents(ctx, "hello-python", start)
	if desired := kubetest.DesiredSteps(evs); fmt.Sprint(desired) != "[2 4 0 1]" {
		t.Errorf("desired %v", desired)
	}
	before := time.Now()
	how, err := p.MakeCold(ctx, "hello-python")
	if err != nil || !strings.Contains(how.How, "back to 1") || how.OnPath {
		t.Fatalf("MakeCold: %+v %v", how, err)
	}
	if started, _ := p.StartedSince(ctx, "hello-python", before); len(started) != 1 {
		t.Errorf("pods started by MakeCold: %v, want 1 new pod", started)
	}
	url, err := p.Endpoint(ctx, "hello-python")
	svc, _ := cl.Client.CoreV1().Services(cl.Namespace).Get(ctx, "hello-python", metav1.GetOptions{})
	if err != nil || url != fmt.Sprintf("http://10.244.255.1:%d/", svc.Spec.Ports[0].NodePort) {
		t.Errorf("endpoint %q %v", url, err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	pods, _ := cl.Client.CoreV1().Pods(cl.Namespace).List(ctx, metav1.ListOptions{LabelSelector: kube.Selector("", "")})
	deps, _ := cl.Client.AppsV1().Deployments(cl.Namespace).List(ctx, metav1.ListOptions{})
	if len(pods.Items)+len(deps.Items) != 0 {
		t.Errorf("left: %d pods, %d deployments", len(pods.Items), len(deps.Items))
	}
}

// Kubeless' archived controller cannot start on Kubernetes 1.22 or later: a run is refused at
// once with the reason (exit 2), and so is the preflight (platform check).
func TestArchivedKubelessRefusedOnKubernetes122(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg, err := kubeless.ParseConfig("refused", map[string]any{"kubeconfig": kubetest.Kubeconfig(t), "namespace": kubetest.Namespace(t)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = kubeless.Open(ctx, cfg)
	if err == nil || !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "kubernetes 1.34: Kubeless' controller reads its CRD through apiextensions.k8s.io/v1beta1") ||
		!strings.Contains(err.Error(), "patched_controller") {
		t.Errorf("open on 1.34: %v", err)
	}
	cl, err := kube.Connect(cfg.Kube)
	if err != nil {
		t.Fatal(err)
	}
	r := cl.Check(ctx, kubeless.Requirements())
	if r.OK() || !strings.Contains(strings.Join(r.Problems, " "), "runs only below 1.22") {
		t.Errorf("preflight: %+v", r)
	}
}
