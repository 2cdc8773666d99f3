//go:build kube

package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
	"github.com/faasbench/faasbench/results"
)

func TestPlatformCheckOnTheTestControlPlane(t *testing.T) {
	kc := kubetest.Kubeconfig(t)
	code, out, errOut := runCLI(t, "platform", "check", "--platform", "baseline", "--kubeconfig", kc, "-n", "default")
	if code != 0 || !strings.Contains(out, "Kubernetes v1.34.4") || !strings.Contains(out, "ok: nothing stops a run") {
		t.Fatalf("check: %d %q %q", code, out, errOut)
	}
	code, out, _ = runCLI(t, "platform", "check", "--platform", "baseline", "--kubeconfig", kc, "-n", "nowhere", "-o", "json")
	var r kube.CheckReport
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || !strings.Contains(strings.Join(r.Warnings, " "), "namespace nowhere does not exist") {
		t.Errorf("missing namespace: %d %q", code, out)
	}
	// Knative's preflight needs its CRDs (the real ones, from the release's module): the Service's, and
	// the PodAutoscaler's, whose bounds Scale sets.
	cl := kubetest.Cluster(t)
	serving := kubetest.ModuleDir(t, kubetest.ServingCRDModule)
	kubetest.Apply(t, cl, filepath.Join(serving, "config/core/300-resources/service.yaml"))
	kubetest.Apply(t, cl, filepath.Join(serving, "config/core/300-resources/podautoscaler.yaml"))
	code, out, _ = runCLI(t, "platform", "check", "--platform", "knative", "--kubeconfig", kc, "-n", cl.Namespace)
	if code != 0 || !strings.Contains(out, "ok: nothing stops a run") {
		t.Errorf("knative check with its CRDs installed: %d %q", code, out)
	}
	code, _, errOut = runCLI(t, "platform", "check", "--platform", "openwhisk", "--kubeconfig", kc)
	if code != ExitUsage || !strings.Contains(errOut, `--platform: "openwhisk" is not a Kubernetes platform`) {
		t.Errorf("unknown platform: %d %q", code, errOut)
	}
	dead := filepath.Join(t.TempDir(), "kubeconfig")
	raw, _ := os.ReadFile(kc)
	_ = os.WriteFile(dead, []byte(strings.Replace(string(raw), "https://127.0.0.1:", "https://127.0.0.1:1", 1)), 0o600)
	code, out, _ = runCLI(t, "platform", "check", "--platform", "baseline", "--kubeconfig", dead)
	if code != ExitFailed || !strings.Contains(out, "problem: cannot reach the Kubernetes API at https://127.0.0.1:1") {
		t.Errorf("unreachable server: %d %q", code, out)
	}
}

// A run on the baseline against the test control plane: deploy, load
// (the pods run nothing, so the endpoint is pointed at a closed loopback
// port and every request fails fast; no traffic leaves the machine),
// fingerprint and warnings in the manifest, and nothing left afterwards.
func TestRunOnTheBaselineCleansUp(t *testing.T) {
	kc := kubetest.Kubeconfig(t)
	ns := kubetest.Namespace(t)
	dir := t.TempDir()
	specFile := filepath.Join(dir, "k.yaml")
	err := os.WriteFile(specFile, []byte(`version: 1
name: kube-smoke
platform:
  name: baseline
  namespace: `+ns+`
  options: {endpoint_host: 127.0.0.1, ready_timeout: 60s}
functions:
  - {workload: hello, language: go, replicas: 2}
load: {model: closed, concurrency: [1], duration: 300ms, warmup: 0s, timeout: 200ms}
repetitions: 1
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "run", specFile, "--kubeconfig", kc, "--results", dir, "--workloads", "../workloads")
	t.Logf("run: exit %d\n%s\n%s", code, out, errOut)
	if !strings.Contains(errOut, "warning: this cluster serves no metrics.k8s.io API") {
		t.Errorf("no warning about resource metrics")
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "kube-smoke-*", "manifest.json"))
	if len(runs) != 1 {
		t.Fatalf("run directories: %v", runs)
	}
	raw, _ := os.ReadFile(runs[0])
	var m results.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	cluster, _ := m.Platform["cluster"].(map[string]any)
	if cluster["server_version"] != "v1.34.4" || !strings.Contains(strings.Join(m.Warnings, " "), "metrics.k8s.io") || m.CPUs.Platform != "" {
		t.Errorf("manifest platform %v, warnings %q, cpus %+v", m.Platform, m.Warnings, m.CPUs)
	}
	assertNothingLeft(t, kc, ns)
}

// Ctrl-C in the middle of a run still removes everything. The simulated
// pods serve nothing, so a kind that probes its functions would fail at
// once (exit 1, TestRunOnTheBaselineCleansUp); kind coldstart is not probed
// and scales the function down and up for each of its iterations, so the
// run is mid-cell when it is interrupted.
func TestInterruptedRunCleansUp(t *testing.T) {
	kc := kubetest.Kubeconfig(t)
	ns := kubetest.Namespace(t)
	dir := t.TempDir()
	specFile := filepath.Join(dir, "k.yaml")
	_ = os.WriteFile(specFile, []byte(`version: 1
name: kube-stop
kind: coldstart
platform: {name: baseline, namespace: `+ns+`, options: {endpoint_host: 127.0.0.1}}
functions:
  - {workload: hello, language: go, replicas: 3}
coldstart: {iterations: 100, warm: 1}
load: {timeout: 200ms}
repetitions: 1
`), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		cl, _ := kube.Connect(kube.Options{Kubeconfig: kc, Namespace: ns})
		for i := 0; i < 600; i++ {
			pods, err := cl.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: kube.Selector("", "")})
			if err == nil && len(pods.Items) == 3 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond)
		cancel()
	}()
	var out, errb strings.Builder
	code := Main(ctx, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Executable: "/nonexistent"},
		[]string{"run", specFile, "--kubeconfig", kc, "--results", dir, "--workloads", "../workloads"})
	if code != ExitInterrupted {
		t.Errorf("exit %d, want %d\n%s", code, ExitInterrupted, errb.String())
	}
	assertNothingLeft(t, kc, ns)
}

func assertNothingLeft(t *testing.T, kc, ns string) {
	t.Helper()
	cl, err := kube.Connect(kube.Options{Kubeconfig: kc, Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sel := metav1.ListOptions{LabelSelector: kube.Selector("", "")}
	deps, _ := cl.Client.AppsV1().Deployments(ns).List(ctx, sel)
	svcs, _ := cl.Client.CoreV1().Services(ns).List(ctx, sel)
	pods, _ := cl.Client.CoreV1().Pods(ns).List(ctx, sel)
	if len(deps.Items)+len(svcs.Items)+len(pods.Items) != 0 {
		t.Errorf("left: %d deployments, %d services, %d pods", len(deps.Items), len(svcs.Items), len(pods.Items))
	}
	n, err := cl.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err == nil && n.DeletionTimestamp == nil {
		t.Errorf("namespace %s made for the run is still there", ns)
	}
}

// platform clean finds what a killed run left, by label, and nothing else.
func TestPlatformCleanRemovesLeftovers(t *testing.T) {
	kc := kubetest.Kubeconfig(t)
	cl := kubetest.Cluster(t)
	ctx := context.Background()
	one := int32(1)
	for _, run := range []string{"dead-run", "other-run"} {
		l := kube.Labels(run, "fn-"+run)
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "fn-" + run, Labels: l},
			Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: l},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: l}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "f", Image: "x"}}}}}}
		if _, err := cl.Client.AppsV1().Deployments(cl.Namespace).Create(ctx, d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runCLI(t, "platform", "clean", "--platform", "baseline", "--kubeconfig", kc, "-n", cl.Namespace, "--run-id", "dead-run")
	if code != 0 || !strings.Contains(out, "deleted deployments "+cl.Namespace+"/fn-dead-run") || strings.Contains(out, "other-run") {
		t.Fatalf("clean: %d %q %q", code, out, errOut)
	}
	if _, err := cl.Client.AppsV1().Deployments(cl.Namespace).Get(ctx, "fn-other-run", metav1.GetOptions{}); err != nil {
		t.Errorf("another run's deployment: %v", err)
	}
	code, out, _ = runCLI(t, "platform", "clean", "--platform", "baseline", "--kubeconfig", kc, "-A", "--run-id", "other-run", "-o", "json")
	var gone []kube.Cleaned
	if code != 0 || json.Unmarshal([]byte(out), &gone) != nil {
		t.Fatalf("clean -A: %d %q", code, out)
	}
	found := false
	for _, g := range gone {
		found = found || (g.Kind == "deployments" && g.Name == "fn-other-run")
	}
	if !found {
		t.Errorf("clean -A did not delete fn-other-run: %+v", gone)
	}
}
