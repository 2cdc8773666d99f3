//go:build kube

package nuclio_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
	"github.com/faasbench/faasbench/platform/nuclio"
	"github.com/faasbench/faasbench/workloads"
)

func open(t *testing.T, run string) (*nuclio.Platform, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cfg, err := nuclio.ParseConfig(run, map[string]any{"kubeconfig": kubetest.Kubeconfig(t), "namespace": kubetest.Namespace(t), "ready_timeout": "60s"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := nuclio.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	kubetest.Apply(t, p.Cluster, "testdata/nucliofunction-crd.yaml")
	nuclioStandIn(ctx, t, p.Cluster)
	return p, ctx
}

// Every workload × language becomes a NuclioFunction the API server
// accepts under strict field validation; a misspelt field is refused.
func TestFunctionsPassTheSchema(t *testing.T) {
	cl := kubetest.Cluster(t)
	kubetest.Apply(t, cl, "testdata/nucliofunction-crd.yaml")
	cat, err := workloads.Load("../../workloads")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := nuclio.ParseConfig("schema", nil)
	fns := cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(cl.Namespace)
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"}
	n := 0
	for _, w := range cat.Names() {
		wl, _ := cat.Get(w)
		for _, lang := range wl.Languages {
			for _, set := range []map[string]string{{}, {"min_replicas": "1", "max_replicas": "4", "target_cpu": "70", "max_request_body_size": "16777216"}} {
				if lang == "java" { // no faasbench image: the user's own
					set["image"] = "registry.example.com/" + w + "-" + lang + "-nuclio:1"
				}
				fn := platform.Function{Name: w + "-" + lang, Workload: w, Language: lang, Replicas: 2, Workers: 4, MemoryMB: 256, CPUs: 1, Settings: set}
				s, err := nuclio.ParseSettings(fn)
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
	}
	fn := platform.Function{Name: "typo", Workload: "hello", Language: "python", Replicas: 1}
	s, _ := nuclio.ParseSettings(fn)
	u, _ := cfg.Function(cl.Namespace, fn, s)
	u.Object["spec"].(map[string]any)["triggers"].(map[string]any)["http"].(map[string]any)["maxWorker"] = int64(2)
	if _, err := fns.Create(context.Background(), u, dry); err == nil || !strings.Contains(err.Error(), "maxWorker") {
		t.Errorf("a misspelt field was accepted: %v", err)
	}
	t.Logf("%d NuclioFunctions validated", n)
}

func TestDeployScaleEndpointAndCleanUp(t *testing.T) {
	p, ctx := open(t, "nu-run")
	cl := p.Cluster
	start := time.Now()
	if err := p.Deploy(ctx, platform.Function{Name: "reverse-go", Workload: "reverse", Language: "go", Replicas: 2, Workers: 4, Settings: map[string]string{"image": "r/reverse-go-nuclio:1"}}); err != nil {
		t.Fatal(err)
	}
	// Nuclio's controller needs the function's project in its namespace: the run made it, with no
	// run label (no cleaning by label may take it), naming the run.
	proj, err := cl.Dynamic.Resource(nuclio.ProjectGVR).Namespace(cl.Namespace).Get(ctx, "default", metav1.GetOptions{})
	if err != nil || proj.GetAnnotations()[nuclio.AnnotationProjectOf] != "nu-run" || len(proj.GetLabels()) != 0 {
		t.Errorf("the default project: %v %v", proj, err)
	}
	if pp, _, _ := unstructured.NestedString(u0(ctx, t, cl).Object, "spec", "imagePullPolicy"); pp != "IfNotPresent" && pp != "Never" && pp != "Always" {
		t.Errorf("imagePullPolicy %q", pp)
	}
	// A probe that fails is explained in Nuclio's words: the function's state and its pods (their
	// processor's log lines where the node keeps logs: KWOK's pods have none).
	if why := p.Explain(ctx, "reverse-go"); !strings.Contains(why, "Nuclio's function reverse-go: state ready") || !strings.Contains(why, "\n  pod ") {
		t.Errorf("explain: %q", why)
	}
	if eps, err := p.DirectEndpoints(ctx, "reverse-go"); err != nil || len(eps) != 2 || !strings.HasSuffix(eps[0], ":8080/") {
		t.Errorf("direct endpoints %v %v, want both pods' processors on 8080", eps, err)
	}
	u, _ := cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(cl.Namespace).Get(ctx, "reverse-go", metav1.GetOptions{})
	// The processor sizes its pool from numWorkers (maxWorkers is only copied by the dashboard).
	if w, _, _ := unstructured.NestedInt64(u.Object, "spec", "triggers", "http", "numWorkers"); w != 4 {
		t.Errorf("numWorkers %d, want 4", w)
	}
	for _, n := range []int{5, 0} {
		if err := p.Scale(ctx, "reverse-go", n); err != nil {
			t.Fatal(err)
		}
	}
	evs, _ := p.ReplicaEvents(ctx, "reverse-go", start)
	desired := kubetest.DesiredSteps(evs)
	if fmt.Sprint(desired) != "[2 5 0]" {
		t.Errorf("desired %v", desired)
	}
	url, err := p.Endpoint(ctx, "reverse-go")
	svc, _ := cl.Client.CoreV1().Services(cl.Namespace).Get(ctx, "nuclio-reverse-go", metav1.GetOptions{})
	if err != nil || url != fmt.Sprintf("http://10.244.255.1:%d/", svc.Spec.Ports[0].NodePort) {
		t.Errorf("endpoint %q %v", url, err)
	}
	if err := p.Deploy(ctx, platform.Function{Name: "sleep-python", Workload: "sleep", Language: "python", CPUs: 0.5,
		Settings: map[string]string{"min_replicas": "1", "max_replicas": "3", "target_cpu": "60"}}); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	pods, _ := cl.Client.CoreV1().Pods(cl.Namespace).List(ctx, metav1.ListOptions{LabelSelector: kube.Selector("", "")})
	deps, _ := cl.Client.AppsV1().Deployments(cl.Namespace).List(ctx, metav1.ListOptions{})
	if len(pods.Items)+len(deps.Items) != 0 {
		t.Errorf("left: %d pods, %d deployments", len(pods.Items), len(deps.Items))
	}
	if _, err := cl.Dynamic.Resource(nuclio.ProjectGVR).Namespace(cl.Namespace).Get(ctx, "default", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the project the run made is left: %v", err)
	}
}

func u0(ctx context.Context, t *testing.T, cl *kube.Cluster) *unstructured.Unstructured {
	t.Helper()
	u, err := cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(cl.Namespace).Get(ctx, "reverse-go", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Without its project, Nuclio's controller puts a function in state error: a function written
// before the project exists fails its deploy with the controller's words, not a timeout.
func TestFunctionWithoutItsProjectFails(t *testing.T) {
	cl := kubetest.Cluster(t)
	kubetest.Apply(t, cl, "testdata/nucliofunction-crd.yaml")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	nuclioStandIn(ctx, t, cl)
	cfg, _ := nuclio.ParseConfig("nu-noproj", nil)
	fn := platform.Function{Name: "hello-python", Workload: "hello", Language: "python", Replicas: 1}
	s, _ := nuclio.ParseSettings(fn)
	u, err := cfg.Function(cl.Namespace, fn, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(cl.Namespace).Create(ctx, u, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = kube.Poll(ctx, 30*time.Second, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		got, err := cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(cl.Namespace).Get(ctx, "hello-python", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st, _, _ := unstructured.NestedString(got.Object, "status", "state")
		msg, _, _ := unstructured.NestedString(got.Object, "status", "message")
		return st == "error" && strings.Contains(msg, "Failed to get project default"), nil
	})
	if err != nil {
		t.Errorf("the function without its project: %v", err)
	}
}

// A forced cold start disables the function until no pod is left and
// enables it again: every pod serving afterwards started after the call,
// and none of the old ones is left.
func TestMakeColdReplacesEveryPod(t *testing.T) {
	p, ctx := open(t, "nu-cold")
	defer p.Close(ctx)
	if err := p.Deploy(ctx, platform.Function{Name: "hello-go", Workload: "hello", Language: "node", Replicas: 2}); err != nil {
		t.Fatal(err)
	}
	before := podNames(ctx, t, p)
	since := time.Now()
	how, err := p.MakeCold(ctx, "hello-go")
	if err != nil {
		t.Fatal(err)
	}
	started, err := p.StartedSince(ctx, "hello-go", since)
	if err != nil {
		t.Fatal(err)
	}
	after := podNames(ctx, t, p)
	if len(started) != 2 || len(after) != 2 {
		t.Fatalf("%d pods started, %d now (want 2, 2): %+v", len(started), len(after), how)
	}
	for _, s := range started {
		if before[s.ID] || !after[s.ID] || s.Ready.IsZero() {
			t.Errorf("started %+v: old %v, serving %v", s, before[s.ID], after[s.ID])
		}
	}
	u, _ := p.Cluster.Dynamic.Resource(nuclio.FunctionGVR).Namespace(p.Namespace()).Get(ctx, "hello-go", metav1.GetOptions{})
	if _, disabled, _ := unstructured.NestedBool(u.Object, "spec", "disable"); disabled {
		t.Error("spec.disable left set")
	}
	if r, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas"); r != 2 {
		t.Errorf("spec.replicas %d, want 2", r)
	}
	t.Log(how)
}

func podNames(ctx context.Context, t *testing.T, p *nuclio.Platform) map[string]bool {
	t.Helper()
	pods, err := p.Cluster.Client.CoreV1().Pods(p.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: nuclio.LabelFunctionName + "=hello-go"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, pod := range pods.Items {
		if pod.DeletionTimestamp == nil {
			out[pod.Name] = true
		}
	}
	return out
}

// Restarting Nuclio between repetitions rolls out its own Deployments (the chart's, nuclio.io/class:
// service), never a function's, which the chart's namespaced controller puts in the same namespace:
// a restart that rolled the functions too made their next request a new pod's first.
func TestRestartLeavesTheFunctions(t *testing.T) {
	cl := kubetest.Cluster(t)
	kubetest.Apply(t, cl, "testdata/nucliofunction-crd.yaml")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	one := int32(1)
	labels := map[string]string{"nuclio.io/app": "controller", "nuclio.io/class": "service", "app": "nuclio"}
	ctl := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "nuclio-controller", Labels: labels},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nuclio-controller", Image: "ko.local/nuclio/controller:1"}}}}}}
	if _, err := cl.Client.AppsV1().Deployments(cl.Namespace).Create(ctx, ctl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg, err := nuclio.ParseConfig("nu-restart", map[string]any{"kubeconfig": kubetest.Kubeconfig(t), "namespace": cl.Namespace,
		"nuclio_namespace": cl.Namespace, "ready_timeout": "60s"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := nuclio.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	nuclioStandIn(ctx, t, p.Cluster)
	if err := p.Deploy(ctx, platform.Function{Name: "hello-go", Workload: "hello", Language: "node", Replicas: 1}); err != nil {
		t.Fatal(err)
	}
	said, err := p.Restart(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"nuclio-controller": true, "nuclio-hello-go": false} {
		d, err := cl.Client.AppsV1().Deployments(cl.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, restarted := d.Spec.Template.Annotations[kube.RestartedAtAnnotation]; restarted != want {
			t.Errorf("%s restarted %v, want %v (%s)", name, restarted, want, said)
		}
	}
	if !strings.Contains(said, "nuclio-controller") || strings.Contains(said, "hello-go") {
		t.Errorf("said %q", said)
	}
}
