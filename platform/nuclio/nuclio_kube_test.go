//go:build kube

package nuclio_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/faasbench/faasbench/internal/kubetest"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
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

// kubeStore keeps the dashboard stand-in's functions as NuclioFunctions in
// the API server, as Nuclio's dashboard does through its platform
// (pkg/platform/kube/client/deployer.go: the spec and labels given, state
// waitingForResourceConfiguration); the controller stand-in does the rest.
type kubeStore struct {
	r dynamic.NamespaceableResourceInterface
}

func (s kubeStore) get(ctx context.Context, ns, name string) (map[string]any, bool, error) {
	u, err := s.r.Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return map[string]any{"metadata": map[string]any{"name": u.GetName(), "namespace": ns, "labels": u.GetLabels()},
		"spec": u.Object["spec"], "status": u.Object["status"]}, true, nil
}

func (s kubeStore) put(ctx context.Context, ns string, fn map[string]any) error {
	md := fn["metadata"].(map[string]any)
	labels := map[string]string{}
	if l, ok := md["labels"].(map[string]any); ok {
		for k, v := range l {
			labels[k] = v.(string)
		}
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u, err := s.r.Namespace(ns).Get(ctx, md["name"].(string), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			u = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "nuclio.io/v1beta1", "kind": "NuclioFunction",
				"metadata": map[string]any{"name": md["name"], "namespace": ns}}}
		} else if err != nil {
			return err
		}
		u.SetLabels(labels)
		u.Object["spec"] = fn["spec"]
		u.Object["status"] = map[string]any{"state": nuclio.StateWaitingForResources}
		if u.GetResourceVersion() == "" {
			_, err = s.r.Namespace(ns).Create(ctx, u, metav1.CreateOptions{FieldValidation: "Strict"})
		} else {
			_, err = s.r.Namespace(ns).Update(ctx, u, metav1.UpdateOptions{FieldValidation: "Strict"})
		}
		return err
	})
}

func (s kubeStore) del(ctx context.Context, ns, name string) (bool, error) {
	err := s.r.Namespace(ns).Delete(ctx, name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// Through the dashboard: deploy, scale, a forced cold start and cleanup,
// with the functions the dashboard made in the API server and pods from
// the controller stand-in, the real controllers and KWOK.
func TestThroughTheDashboard(t *testing.T) {
	cl := kubetest.Cluster(t)
	kubetest.Apply(t, cl, "testdata/nucliofunction-crd.yaml")
	// The dashboard's functions need their project (the dashboard refuses without it: 412); a
	// dashboard user has it, made by the dashboard's own project API.
	if _, err := cl.Dynamic.Resource(nuclio.ProjectGVR).Namespace(cl.Namespace).Create(context.Background(),
		nuclio.Config{}.Project(cl.Namespace), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	srv, log := dashboardStandIn(t, kubeStore{cl.Dynamic.Resource(nuclio.FunctionGVR)})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg, err := nuclio.ParseConfig("nu-dash", map[string]any{"kubeconfig": kubetest.Kubeconfig(t), "namespace": cl.Namespace,
		"ready_timeout": "60s", "dashboard_url": srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	p, err := nuclio.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	nuclioStandIn(ctx, t, p.Cluster)
	start := time.Now()
	fn := platform.Function{Name: "prime-python", Workload: "prime", Language: "python", Replicas: 1, Workers: 2}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	if err := p.Deploy(ctx, fn); err != nil { // again: replaced through PUT
		t.Fatal(err)
	}
	if err := p.Scale(ctx, "prime-python", 3); err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	if _, err := p.MakeCold(ctx, "prime-python"); err != nil {
		t.Fatal(err)
	}
	started, _ := p.StartedSince(ctx, "prime-python", since)
	if len(started) != 3 {
		t.Errorf("%d pods started by the cold start, want 3", len(started))
	}
	evs, _ := p.ReplicaEvents(ctx, "prime-python", start)
	if d := fmt.Sprint(kubetest.DesiredSteps(evs)); d != "[1 3 0 3]" {
		t.Errorf("desired %s", d)
	}
	u, _ := cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(cl.Namespace).Get(ctx, "prime-python", metav1.GetOptions{})
	if img, _, _ := unstructured.NestedString(u.Object, "spec", "image"); img != "faasbench/prime-python-nuclio:latest" {
		t.Errorf("image %q", img)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if l, _ := cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(cl.Namespace).List(ctx, metav1.ListOptions{}); len(l.Items) != 0 {
		t.Errorf("%d functions left", len(l.Items))
	}
	var puts, deletes int
	for _, r := range *log {
		puts += strings.Count(r, "PUT ")
		deletes += strings.Count(r, "DELETE ")
	}
	if puts != 4 || deletes != 1 { // deploy again, scale, disable, enable; close
		t.Errorf("requests: %v", *log)
	}
}

// A run that made the project default leaves it when a function that is not
// the run's is in it: Nuclio deletes a project's functions with it. The
// function is left, and the run says what it left.
func TestProjectWithOthersFunctionsIsLeft(t *testing.T) {
	p, ctx := open(t, "nu-proj")
	cl := p.Cluster
	if err := p.Deploy(ctx, platform.Function{Name: "hello-node", Workload: "hello", Language: "node", Replicas: 1}); err != nil {
		t.Fatal(err)
	}
	theirs := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "nuclio.io/v1beta1", "kind": "NuclioFunction",
		"metadata": map[string]any{"name": "someone-elses", "namespace": cl.Namespace, "labels": map[string]any{"nuclio.io/project-name": "default"}},
		"spec":     map[string]any{"image": "their/function:1", "runtime": "python:3.11", "handler": "main:handler", "replicas": int64(0)}}}
	if _, err := cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(cl.Namespace).Create(ctx, theirs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Dynamic.Resource(nuclio.ProjectGVR).Namespace(cl.Namespace).Get(ctx, "default", metav1.GetOptions{}); err != nil {
		t.Errorf("the project with someone else's function in it was deleted: %v", err)
	}
	if _, err := cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(cl.Namespace).Get(ctx, "someone-elses", metav1.GetOptions{}); err != nil {
		t.Errorf("someone else's function: %v", err)
	}
	if _, err := cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(cl.Namespace).Get(ctx, "hello-node", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the run's function is left: %v", err)
	}
	if w := strings.Join(p.Warnings(), "\n"); !strings.Contains(w, "left the NuclioProject default") || !strings.Contains(w, "someone-elses") {
		t.Errorf("warnings: %q", w)
	}
}

// A run in a namespace Nuclio's controller does not act in is refused at
// open in one sentence (its functions would wait for a state that never
// comes); one where it acts, or a controller acting everywhere, is not.
func TestNamespaceTheControllerDoesNotWatchIsRefused(t *testing.T) {
	cl := kubetest.Cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	zero := int32(0)
	ctl := func(ns string) {
		t.Helper()
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "nuclio-controller", Labels: map[string]string{"nuclio.io/app": "controller"}},
			Spec: appsv1.DeploymentSpec{Replicas: &zero, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"nuclio.io/app": "controller"}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"nuclio.io/app": "controller"}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nuclio-controller", Image: "ko.local/nuclio/controller:1",
						Env: []corev1.EnvVar{{Name: "NUCLIO_CONTROLLER_NAMESPACE", Value: ns}}}}}}}}
		_ = cl.Client.AppsV1().Deployments(cl.Namespace).Delete(ctx, d.Name, metav1.DeleteOptions{})
		if _, err := cl.Client.AppsV1().Deployments(cl.Namespace).Create(ctx, d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	openIn := func(run string) error {
		cfg, err := nuclio.ParseConfig(run, map[string]any{"kubeconfig": kubetest.Kubeconfig(t), "namespace": cl.Namespace, "nuclio_namespace": cl.Namespace})
		if err != nil {
			t.Fatal(err)
		}
		p, err := nuclio.Open(ctx, cfg)
		if err == nil {
			_ = p.Close(ctx)
		}
		return err
	}
	ctl("team-a")
	err := openIn("nu-ns1")
	if !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), `acts only in namespace "team-a"`) || !strings.Contains(err.Error(), "platform.options.namespace") {
		t.Errorf("a namespace the controller does not act in: %v", err)
	}
	for _, ns := range []string{"", "*"} { // the chart's namespaced default (its own namespace, here the run's), cluster mode
		ctl(ns)
		if err := openIn("nu-ns2"); err != nil {
			t.Errorf("controller namespace %q: %v", ns, err)
		}
	}
}

// dlxStandIn is Nuclio's DLX as github.com/v3io/scaler pkg/dlx and Nuclio's
// resource scaler (pkg/platform/kube/resourcescaler) make it: a request
// names its function in X-Nuclio-Target (400 without); the function is set
// to waitingForScaleResourceFromZero, and the request is held until its
// state is ready (looked at every 3 s there, 50 ms here), then proxied: here
// answered by the stand-in, KWOK's pods serve nothing.
func dlxStandIn(t *testing.T, cl *kube.Cluster) *httptest.Server {
	fns := cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(cl.Namespace)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.Header.Get(nuclio.HeaderTarget)
		if name == "" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if err := setState(r.Context(), fns, name, stateFromZero); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		for r.Context().Err() == nil {
			u, err := fns.Get(r.Context(), name, metav1.GetOptions{})
			if st, _, _ := unstructured.NestedString(u.Object, "status", "state"); err == nil && st == "ready" {
				_, _ = w.Write([]byte("pong"))
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// setState writes a function's state with the object (no status subresource).
func setState(ctx context.Context, fns dynamic.ResourceInterface, name, state string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u, err := fns.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := unstructured.SetNestedField(u.Object, state, "status", "state"); err != nil {
			return err
		}
		_, err = fns.Update(ctx, u, metav1.UpdateOptions{})
		return err
	})
}

// A function with min_replicas 0 goes cold Nuclio's own way: MakeCold waits
// for Nuclio's autoscaler to scale it to zero (state scaledToZero, no pod),
// and the cold request goes to the DLX with X-Nuclio-Target, which raises a
// new pod on the request (on the path). Without platform.options.dlx_url it
// is refused in one sentence.
func TestScaleToZeroThroughTheDLX(t *testing.T) {
	cl := kubetest.Cluster(t)
	kubetest.Apply(t, cl, "testdata/nucliofunction-crd.yaml")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dlx := dlxStandIn(t, cl)
	openWith := func(run string, extra map[string]any) *nuclio.Platform {
		opts := map[string]any{"kubeconfig": kubetest.Kubeconfig(t), "namespace": cl.Namespace, "ready_timeout": "60s", "scale_to_zero_timeout": "60s"}
		for k, v := range extra {
			opts[k] = v
		}
		cfg, err := nuclio.ParseConfig(run, opts)
		if err != nil {
			t.Fatal(err)
		}
		p, err := nuclio.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := openWith("nu-zero", map[string]any{"dlx_url": dlx.URL})
	defer p.Close(ctx)
	nuclioStandIn(ctx, t, p.Cluster)
	fn := platform.Function{Name: "hello-go", Workload: "hello", Language: "node", Settings: map[string]string{"min_replicas": "0", "max_replicas": "2"}}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	without := openWith("nu-zero-nodlx", nil)
	defer without.Close(ctx)
	if _, err := without.MakeCold(ctx, "hello-go"); !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "platform.options.dlx_url") {
		t.Errorf("without the DLX's address: %v", err)
	}
	fns := cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(cl.Namespace)
	go func() { // Nuclio's autoscaler: the function stayed idle over its window
		time.Sleep(300 * time.Millisecond)
		_ = setState(ctx, fns, "hello-go", stateToZero)
	}()
	since := time.Now()
	before := podNames(ctx, t, p)
	how, err := p.MakeCold(ctx, "hello-go")
	if err != nil {
		t.Fatal(err)
	}
	firstDone := time.Now()
	if !how.OnPath || how.Via == nil || how.Via.URL != dlx.URL || how.Via.Header[nuclio.HeaderTarget] != "hello-go" {
		t.Fatalf("cold: %+v", how)
	}
	if n := len(podNames(ctx, t, p)); n != 0 || len(before) != 1 {
		t.Fatalf("%d pods at zero (%d before)", n, len(before))
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, how.Via.URL+"/", nil)
	for k, v := range how.Via.Header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the request through the DLX: %v %v", resp, err)
	}
	resp.Body.Close()
	started, err := p.StartedSince(ctx, "hello-go", since)
	if err != nil || len(started) != 1 || before[started[0].ID] {
		t.Errorf("started %+v %v (before: %v)", started, err, before)
	}
	if _, err := p.Endpoint(ctx, "hello-go"); err != nil {
		t.Errorf("endpoint after the cold start: %v", err)
	}
	t.Log(how.How)
	// Again: the DLX answers a function it raised less than a minute ago with that start's
	// result, without starting it (2 s here): the next cold request waits that out.
	p.SetDLXResultLife(2 * time.Second)
	go func() {
		time.Sleep(100 * time.Millisecond)
		_ = setState(ctx, fns, "hello-go", stateToZero)
	}()
	if _, err := p.MakeCold(ctx, "hello-go"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(firstDone); d < 2*time.Second {
		t.Errorf("the second cold start came %s after the first: within the DLX's cached result", d)
	}
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
