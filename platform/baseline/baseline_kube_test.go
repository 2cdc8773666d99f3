//go:build kube

package baseline_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/baseline"
	"github.com/faasbench/faasbench/platform/kube"
)

func open(t *testing.T, run string) (*baseline.Platform, context.Context) {
	t.Helper()
	return openOn(t, run, 3*time.Minute, nil)
}

// Deploy, scale 0→3→5→0 through the scale subresource with the replica
// timeline checked, and every object gone after Close, on the real
// control plane (the controller manager makes ReplicaSets and pods, the
// scheduler places them, KWOK makes them Ready).
func TestDeployScaleAndCleanUp(t *testing.T) {
	p, ctx := open(t, "baseline-run:1")
	cl := p.Cluster
	ns := cl.Namespace
	start := time.Now()
	fn := platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 0}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, n := range []int{3, 5, 0} {
		t0 := time.Now()
		if err := p.Scale(ctx, "hello-go", n); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, fmt.Sprintf("→%d %s", n, time.Since(t0).Round(time.Millisecond)))
		pods, err := cl.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: kube.Selector("baseline-run-1", "hello-go")})
		if err != nil || len(pods.Items) != n {
			t.Fatalf("after scaling to %d: %d pods (%v)", n, len(pods.Items), err)
		}
		if n == 5 {
			eps, err := p.DirectEndpoints(ctx, "hello-go")
			if err != nil || len(eps) != 5 || !strings.HasSuffix(eps[0], ":8080/") {
				t.Errorf("direct endpoints %v %v", eps, err)
			}
		}
	}
	t.Logf("scale steps: %s", strings.Join(steps, ", "))
	evs, _ := p.ReplicaEvents(ctx, "hello-go", start)
	var desired []int
	readyAt := map[int]time.Time{}
	for _, e := range evs {
		if e.Kind == "scaled" {
			desired = append(desired, e.Desired)
		}
		if _, seen := readyAt[e.Ready]; !seen && e.Kind == "ready" {
			readyAt[e.Ready] = e.At
		}
		if e.Ready > e.Desired && e.Desired != 0 {
			t.Errorf("event %+v: more ready than desired", e)
		}
	}
	if fmt.Sprint(desired) != "[0 3 5 0]" {
		t.Errorf("desired steps %v, want [0 3 5 0]", desired)
	}
	if len(readyAt) != 5 || !readyAt[3].Before(readyAt[4]) {
		t.Errorf("ready counts reached %v: want 1..5 in order", readyAt)
	}
	if last := evs[len(evs)-1]; last.Ready != 0 || last.Pending != 0 || last.Terminating != 0 {
		t.Errorf("last event %+v", last)
	}
	u, err := p.Endpoint(ctx, "hello-go")
	svc, _ := cl.Client.CoreV1().Services(ns).Get(ctx, "hello-go", metav1.GetOptions{})
	if err != nil || u != fmt.Sprintf("http://10.244.255.1:%d/", svc.Spec.Ports[0].NodePort) {
		t.Errorf("endpoint %q %v: want the node's InternalIP and the node port", u, err)
	}
	fp, _ := p.Fingerprint(ctx)
	if facts, ok := fp["cluster"].(kube.ClusterFacts); !ok || facts.ServerVersion != "v1.34.4" || !strings.Contains(fmt.Sprint(fp["warnings"]), "metrics.k8s.io") {
		t.Errorf("fingerprint %+v", fp)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for what, n := range leftovers(ctx, t, cl, ns) {
		if n != 0 {
			t.Errorf("%d %s left after Close", n, what)
		}
	}
	nsObj, err := cl.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err == nil && nsObj.DeletionTimestamp == nil {
		t.Errorf("namespace %s made for the run is still there", ns)
	} else if err != nil && !apierrors.IsNotFound(err) {
		t.Error(err)
	}
}

func leftovers(ctx context.Context, t *testing.T, cl *kube.Cluster, ns string) map[string]int {
	sel := metav1.ListOptions{LabelSelector: kube.Selector("", "")}
	d, err1 := cl.Client.AppsV1().Deployments(ns).List(ctx, sel)
	s, err2 := cl.Client.CoreV1().Services(ns).List(ctx, sel)
	h, err3 := cl.Client.AutoscalingV2().HorizontalPodAutoscalers(ns).List(ctx, sel)
	p, err4 := cl.Client.CoreV1().Pods(ns).List(ctx, sel)
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return map[string]int{"deployments": len(d.Items), "services": len(s.Items), "autoscalers": len(h.Items), "pods": len(p.Items)}
}

// Coldness is forced by scaling to 0 and back: the platform's record names
// the new pods, which carry FB_INSTANCE_ID = pod name.
func TestMakeColdStartsNewPods(t *testing.T) {
	p, ctx := open(t, "cold")
	defer p.Close(context.Background())
	if err := p.Deploy(ctx, platform.Function{Name: "prime-go", Workload: "prime", Language: "go", Replicas: 2}); err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	how, err := p.MakeCold(ctx, "prime-go")
	if err != nil || !strings.Contains(how.How, "scaled to 0 and back to 2") || how.OnPath {
		t.Fatalf("%+v %v", how, err)
	}
	st, _ := p.StartedSince(ctx, "prime-go", since)
	pods, _ := p.Cluster.Client.CoreV1().Pods(p.Cluster.Namespace).List(ctx, metav1.ListOptions{LabelSelector: kube.Selector("cold", "prime-go")})
	if len(st) != 2 || len(pods.Items) != 2 {
		t.Fatalf("started %+v, %d pods", st, len(pods.Items))
	}
	for _, pod := range pods.Items {
		if pod.Name != st[0].ID && pod.Name != st[1].ID {
			t.Errorf("pod %s not in the platform's record %+v", pod.Name, st)
		}
	}
	if _, err := p.MakeCold(ctx, "nope"); err == nil {
		t.Error("make cold of a function never deployed")
	}
}

// The API server validates the HPA the baseline makes; a redeploy updates
// in place; a Deployment faasbench did not make is never touched.
func TestHPARedeployAndForeignObjects(t *testing.T) {
	p, ctx := open(t, "hpa")
	defer p.Close(context.Background())
	cl := p.Cluster
	fn := platform.Function{Name: "matrix-java", Workload: "matrix", Language: "java", Replicas: 2, CPUs: 1, MemoryMB: 512,
		Settings: map[string]string{"hpa_max": "4", "hpa_cpu": "50"}}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	h, err := cl.Client.AutoscalingV2().HorizontalPodAutoscalers(cl.Namespace).Get(ctx, "matrix-java", metav1.GetOptions{})
	if err != nil || *h.Spec.MinReplicas != 2 || h.Spec.MaxReplicas != 4 {
		t.Fatalf("hpa %+v %v", h, err)
	}
	fn.Env = map[string]string{"X": "2"}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	d, _ := cl.Client.AppsV1().Deployments(cl.Namespace).Get(ctx, "matrix-java", metav1.GetOptions{})
	if env := d.Spec.Template.Spec.Containers[0].Env; env[len(env)-1].Name != "X" {
		t.Errorf("redeploy did not update: %v", env)
	}
	// Objects of the same names not made by faasbench.
	foreign := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "other"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
	if _, err := cl.Client.CoreV1().Services(cl.Namespace).Create(ctx, foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mine := p.Cluster.Client.AppsV1().Deployments(cl.Namespace)
	theirs := d.DeepCopy()
	theirs.ObjectMeta = metav1.ObjectMeta{Name: "other", Labels: map[string]string{"app": "other"}}
	theirs.Spec.Selector.MatchLabels = map[string]string{"app": "other"}
	theirs.Spec.Template.Labels = map[string]string{"app": "other"}
	if _, err := mine.Create(ctx, theirs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = p.Deploy(ctx, platform.Function{Name: "other", Workload: "hello", Language: "go", Replicas: 1})
	if err == nil || !strings.Contains(err.Error(), "exists and was not made by faasbench") {
		t.Errorf("deploy over a foreign deployment: %v", err)
	}
	if err := p.Remove(ctx, "matrix-java"); err != nil {
		t.Fatal(err)
	}
	if n := leftovers(ctx, t, cl, cl.Namespace); n["deployments"]+n["autoscalers"]+n["pods"]+n["services"] != 0 {
		t.Errorf("left after Remove: %v", n)
	}
	if err := p.Deploy(ctx, platform.Function{Name: "bad", Workload: "hello", Language: "go", Replicas: 1, Mode: "fork"}); err == nil || !strings.Contains(err.Error(), "function bad: mode") {
		t.Errorf("fork mode: %v", err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// Cleanup went by label: the foreign objects were left alone (the
	// namespace, made for the run, is being deleted with them).
	if _, err := cl.Client.CoreV1().Services(cl.Namespace).Get(ctx, "other", metav1.GetOptions{}); err != nil {
		t.Errorf("foreign service: %v", err)
	}
	if _, err := mine.Get(ctx, "other", metav1.GetOptions{}); err != nil {
		t.Errorf("foreign deployment: %v", err)
	}
}

// A secret value (taken from faasbench's environment) reaches the pod
// through a labelled Secret, never as a literal in the Deployment, and the
// Secret goes with the function.
func TestSecretEnvThroughALabelledSecret(t *testing.T) {
	p, ctx := open(t, "baseline-secret:1")
	cl := p.Cluster
	ns := cl.Namespace
	const pw = "pw-4f1c2a9e"
	fn := platform.Function{Name: "query-py", Workload: "query", Language: "python", Replicas: 1,
		Env: map[string]string{"FB_DB_PASSWORD": pw, "FB_DB_HOST": "10.250.0.1"}, SecretEnv: []string{"FB_DB_PASSWORD"}}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	dep, err := cl.Client.AppsV1().Deployments(ns).Get(ctx, "query-py", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ref *corev1.SecretKeySelector
	for _, e := range dep.Spec.Template.Spec.Containers[0].Env {
		if e.Value == pw {
			t.Fatalf("the password is a literal in the Deployment: %+v", e)
		}
		if e.Name == "FB_DB_PASSWORD" && e.ValueFrom != nil {
			ref = e.ValueFrom.SecretKeyRef
		}
	}
	if ref == nil {
		t.Fatal("FB_DB_PASSWORD does not reference a Secret")
	}
	sec, err := cl.Client.CoreV1().Secrets(ns).Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil || string(sec.Data[ref.Key]) != pw || sec.Labels[kube.LabelManagedBy] != kube.ManagedBy {
		t.Fatalf("secret %s: %+v %v", ref.Name, sec, err)
	}
	if err := p.Remove(ctx, "query-py"); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Client.CoreV1().Secrets(ns).Get(ctx, ref.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("secret %s after Remove: %v", ref.Name, err)
	}
}
