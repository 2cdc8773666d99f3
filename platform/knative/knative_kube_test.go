//go:build kube

package knative_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/knative"
	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
	"github.com/faasbench/faasbench/workloads"
)

func installKnative(t *testing.T, cl *kube.Cluster) string {
	dir := kubetest.ModuleDir(t, kubetest.ServingCRDModule)
	kubetest.Apply(t, cl, filepath.Join(dir, "config/core/300-resources/service.yaml"))
	kubetest.Apply(t, cl, filepath.Join(dir, "config/core/300-resources/podautoscaler.yaml"))
	return dir
}

func open(t *testing.T, run string) (*knative.Platform, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	cfg, err := knative.ParseConfig(run, map[string]any{"kubeconfig": kubetest.Kubeconfig(t), "namespace": kubetest.Namespace(t),
		"ready_timeout": "60s", "cold_timeout": "30s"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := knative.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	installKnative(t, p.Cluster)
	knativeStandIn(ctx, t, p.Cluster)
	return p, ctx
}

// Every workload × language, with every setting Knative's annotations
// take, passes the real API server's strict field validation against
// Knative's own published schema (a server-side dry run); and a field the
// schema does not know is refused, so the check is not vacuous.
func TestServicesPassKnativesSchema(t *testing.T) {
	cl := kubetest.Cluster(t)
	installKnative(t, cl)
	cat, err := workloads.Load("../../workloads")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := knative.ParseConfig("schema", nil)
	svcs := cl.Dynamic.Resource(knative.ServiceGVR).Namespace(cl.Namespace)
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"}
	n := 0
	for _, w := range cat.Names() {
		wl, _ := cat.Get(w)
		for _, lang := range wl.Languages {
			fn := platform.Function{Name: w + "-" + lang, Workload: w, Language: lang, Replicas: 2, Concurrency: 4, Workers: 2, MemoryMB: 256, CPUs: 0.5,
				Env: map[string]string{"A": "b"}, Settings: map[string]string{"class": "kpa", "metric": "concurrency", "target": "10", "window": "60s",
					"panic_window_percentage": "10", "panic_threshold_percentage": "200", "min_scale": "1", "max_scale": "8", "initial_scale": "1",
					"scale_down_delay": "0s", "target_burst_capacity": "-1", "timeout_seconds": "300"}}
			s, err := knative.ParseSettings(fn)
			if err != nil {
				t.Fatal(err)
			}
			u, err := cfg.Service(cl.Namespace, fn, s)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svcs.Create(context.Background(), u, dry); err != nil {
				t.Errorf("%s: %v", fn.Name, err)
			}
			n++
		}
	}
	fn := platform.Function{Name: "typo", Workload: "hello", Language: "go", Replicas: 1}
	s, _ := knative.ParseSettings(fn)
	u, _ := cfg.Service(cl.Namespace, fn, s)
	u.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containerConcurency"] = int64(1)
	if _, err := svcs.Create(context.Background(), u, dry); err == nil || !strings.Contains(err.Error(), "containerConcurency") {
		t.Errorf("a field outside Knative's schema was accepted: %v", err)
	}
	t.Logf("%d services validated by the API server against %s's CRD", n, kubetest.ServingCRDModule)
}

// Fixed replicas (min = max), scaling in place (the revision's PodAutoscaler), the replica
// timeline from the revisions' Deployments and pods, the URL from status,
// a cold start refused for a function that cannot scale to zero, and
// cleanup through the garbage collector. (Scale to zero and cold starts
// through the activator run on real Knative: knative_realnode_test.go.)
func TestDeployScaleColdAndCleanUp(t *testing.T) {
	p, ctx := open(t, "kn-run")
	cl := p.Cluster
	start := time.Now()
	fn := platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 3, Concurrency: 1}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	u, err := p.Endpoint(ctx, "hello-go")
	if err != nil || u != "http://hello-go."+cl.Namespace+".example.com/" {
		t.Errorf("endpoint %q %v", u, err)
	}
	for _, n := range []int{5, 1} {
		if err := p.Scale(ctx, "hello-go", n); err != nil {
			t.Fatal(err)
		}
		// The same revision scaled: no new generation of the Service, its PodAutoscaler's bounds set.
		svc, _ := cl.Dynamic.Resource(knative.ServiceGVR).Namespace(cl.Namespace).Get(ctx, "hello-go", metav1.GetOptions{})
		pa, err := cl.Dynamic.Resource(knative.PodAutoscalerGVR).Namespace(cl.Namespace).Get(ctx, "hello-go-00001", metav1.GetOptions{})
		if err != nil || svc.GetGeneration() != 1 || pa.GetAnnotations()[knative.AnnMin] != fmt.Sprint(n) || pa.GetAnnotations()[knative.AnnMax] != fmt.Sprint(n) {
			t.Errorf("after scaling to %d: service generation %d, podautoscaler %v (%v)", n, svc.GetGeneration(), pa.GetAnnotations(), err)
		}
		pods, _ := cl.Client.CoreV1().Pods(cl.Namespace).List(ctx, metav1.ListOptions{LabelSelector: p.Selector("hello-go")})
		live := 0
		for _, pod := range pods.Items {
			if pod.DeletionTimestamp == nil {
				live++
			}
			if pod.Labels[knative.LabelService] != "hello-go" {
				t.Errorf("pod %s: labels %v", pod.Name, pod.Labels)
			}
		}
		if live != n {
			t.Errorf("after scaling to %d: %d pods", n, live)
		}
	}
	// A function with fixed replicas (min-scale 1) never scales to zero: MakeCold says so at
	// once and leaves the template (and so the revisions) alone.
	if how, err := p.MakeCold(ctx, "hello-go"); err == nil || !strings.Contains(err.Error(), "min-scale is 1") {
		t.Fatalf("make cold with min-scale 1: %+v %v", how, err)
	}
	evs, _ := p.ReplicaEvents(ctx, "hello-go", start)
	desired := kubetest.DesiredSteps(evs)
	// One revision's Deployment throughout: 3, 5, 1.
	if s := fmt.Sprint(desired); s != "[3 5 1]" {
		t.Errorf("desired steps %v, want [3 5 1]", desired)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	deps, _ := cl.Client.AppsV1().Deployments(cl.Namespace).List(ctx, metav1.ListOptions{})
	pods, _ := cl.Client.CoreV1().Pods(cl.Namespace).List(ctx, metav1.ListOptions{})
	if len(deps.Items)+len(pods.Items) != 0 {
		t.Errorf("left: %d deployments, %d pods", len(deps.Items), len(pods.Items))
	}
}

// installAutoscalerConfig applies Knative's own config-autoscaler (the release's file) in knative-serving.
func installAutoscalerConfig(ctx context.Context, t *testing.T, p *knative.Platform) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "knative-serving"}}
	_, _ = p.Cluster.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	kubetest.Apply(t, p.Cluster, filepath.Join(kubetest.ModuleDir(t, kubetest.ServingCRDModule), "config/core/configmaps/autoscaler.yaml"))
}

// The fingerprint reads Knative's config-autoscaler (the real file from
// the release, installed in knative-serving) and its component images.
func TestFingerprintReadsTheAutoscalerConfiguration(t *testing.T) {
	p, ctx := open(t, "kn-fp")
	defer p.Close(context.Background())
	installAutoscalerConfig(ctx, t, p)
	cm, _ := p.Cluster.Client.CoreV1().ConfigMaps("knative-serving").Get(ctx, "config-autoscaler", metav1.GetOptions{})
	cm.Data["stable-window"] = "30s"
	if _, err := p.Cluster.Client.CoreV1().ConfigMaps("knative-serving").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f, err := p.Fingerprint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	as, _ := f["config_autoscaler"].(map[string]string)
	if as["stable-window"] != "30s" || as["_example"] != "" || f["autoscaler_error"] != nil {
		t.Errorf("config_autoscaler %v (%v)", as, f["autoscaler_error"])
	}
}

// A Service of the same name not made by faasbench is refused and left alone.
func TestForeignServiceIsLeftAlone(t *testing.T) {
	p, ctx := open(t, "kn-foreign")
	defer p.Close(context.Background())
	cfg, _ := knative.ParseConfig("other", nil)
	fn := platform.Function{Name: "mine", Workload: "hello", Language: "go", Replicas: 1}
	s, _ := knative.ParseSettings(fn)
	u, _ := cfg.Service(p.Namespace(), fn, s)
	u.SetLabels(map[string]string{"app": "theirs"})
	if _, err := p.Cluster.Dynamic.Resource(knative.ServiceGVR).Namespace(p.Namespace()).Create(ctx, u, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := p.Deploy(ctx, fn); err == nil || !strings.Contains(err.Error(), "not made by faasbench") {
		t.Errorf("deploy over a foreign service: %v", err)
	}
}

// Class hpa on a cluster without metrics.k8s.io (this control plane has
// no metrics-server) is refused before anything is created: Knative's HPA
// would never scale there.
func TestHPAWithoutMetricsAPIIsRefused(t *testing.T) {
	p, ctx := open(t, "kn-hpa")
	defer p.Close(context.Background())
	fn := platform.Function{Name: "cpu", Workload: "prime", Language: "go",
		Settings: map[string]string{"autoscale": "cpu", "target": "0.5", "min": "1", "max": "4"}}
	err := p.Deploy(ctx, fn)
	if !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "metrics.k8s.io") {
		t.Fatalf("deploy class hpa without a metrics API: %v", err)
	}
	if _, err := p.Cluster.Dynamic.Resource(knative.ServiceGVR).Namespace(p.Namespace()).Get(ctx, "cpu", metav1.GetOptions{}); err == nil {
		t.Error("the refused function's Service was created")
	}
}

// MakeCold reads the cluster's config-autoscaler, not Knative's defaults: a cluster-wide min-scale means
// no revision without its own min-scale reaches zero, and a scale-down delay that with the stable window
// and grace period outlasts cold_timeout is refused at once, naming each value, rather than waited out.
func TestMakeColdReadsTheClustersAutoscalerSettings(t *testing.T) {
	p, ctx := open(t, "kn-coldcfg")
	defer p.Close(context.Background())
	installAutoscalerConfig(ctx, t, p)
	cms := p.Cluster.Client.CoreV1().ConfigMaps("knative-serving")
	set := func(data map[string]string) {
		t.Helper()
		cm, err := cms.Get(ctx, "config-autoscaler", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range data {
			if v == "" {
				delete(cm.Data, k)
			} else {
				cm.Data[k] = v
			}
		}
		if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { set(map[string]string{"min-scale": "", "scale-down-delay": "", "stable-window": ""}) })
	fn := platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Settings: map[string]string{"min_scale": "0", "initial_scale": "1"}}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	// The function's own min_scale 0 wins over the cluster's default; without it, the default holds.
	set(map[string]string{"min-scale": "2", "stable-window": "6s"})
	fn2 := platform.Function{Name: "hello-go-2", Workload: "hello", Language: "go", Settings: map[string]string{"max_scale": "3"}}
	if err := p.Deploy(ctx, fn2); err != nil {
		t.Fatal(err)
	}
	if _, err := p.MakeCold(ctx, "hello-go-2"); err == nil || !strings.Contains(err.Error(), "config-autoscaler's min-scale is 2") {
		t.Errorf("cluster min-scale 2: %v", err)
	}
	set(map[string]string{"scale-down-delay": "10m"})
	_, err := p.MakeCold(ctx, "hello-go")
	if err == nil || !strings.Contains(err.Error(), "scale-down delay 10m") || !strings.Contains(err.Error(), "platform.options.cold_timeout 30s") {
		t.Errorf("scale-down-delay 10m with cold_timeout 30s: %v", err)
	}
}
