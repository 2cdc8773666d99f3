//go:build kube

package nuclio_test

import (
	"context"
	"errors"
	"fmt"
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

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
	"github.com/faasbench/faasbench/platform/nuclio"
)

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
	// Deploy again, scale, disable, enable; close. At least four updates: one the dashboard refuses
	// while the controller provisions the function (412) is sent again once it is done
	// (TestDashboardWaitsWhileTheFunctionIsProvisioned).
	if puts < 4 || deletes != 1 {
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
