//go:build kube

package fission_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform/kube"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/fission"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
)

func open(t *testing.T, run string) (*fission.Platform, context.Context, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.py"), []byte("def main():\n    return 'hello'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ns := kubetest.Namespace(t)
	probe, err := kube.Connect(kube.Options{Kubeconfig: kubetest.Kubeconfig(t), Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	rt := newRoutes()
	router := routerStandIn(t, probe, rt)
	cfg, err := fission.ParseConfig(platform.Config{RunID: run, WorkloadsDir: dir, Options: map[string]any{"kubeconfig": kubetest.Kubeconfig(t),
		"namespace": ns, "ready_timeout": "60s", "router_url": router}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := fission.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// A call at a pod's own address goes to the stand-in router as that pod.
	fission.SetPodAnswering(p, func(ctx context.Context, name, podURL string, timeout time.Duration) error {
		u, err := url.Parse(podURL)
		if err != nil {
			return err
		}
		return kube.WaitAnswering(ctx, router+"/"+name, 1, timeout, func(r *http.Request) { r.Header.Set(PodIPHeader, u.Hostname()) })
	})
	kubetest.Apply(t, p.Cluster, "testdata/fission-crds.yaml")
	fissionStandIn(ctx, t, p.Cluster, rt)
	return p, ctx, dir
}

// The three executors on the real control plane: objects accepted under
// strict validation, replicas through MinScale/MaxScale with the watched
// timeline, the poolmgr's warm pool seen as the function's pods, the
// router URL, and cleanup of every kind.
func TestExecutorsScaleAndCleanUp(t *testing.T) {
	p, ctx, _ := open(t, "fi-run")
	cl := p.Cluster
	start := time.Now()
	if err := p.Deploy(ctx, platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 2, CPUs: 0.5}); err != nil {
		t.Fatal(err)
	}
	// Deploy returned once both pods answered through the router as the function (the container
	// executor's pods are Ready before it listens): no call after it fails.
	u, _ := p.Endpoint(ctx, "hello-go")
	for i := 0; i < 10; i++ {
		resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Get(u)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("X-Fb-Instance") == "" {
			t.Fatalf("call %d after Deploy: HTTP %d", i, resp.StatusCode)
		}
	}
	// A scale goes to the function's HPA (MinScale = MaxScale = n), which resizes the
	// Deployment at its next sync (the real HPA controller, every 15 s).
	for _, n := range []int{4, 1} {
		if err := p.Scale(ctx, "hello-go", n); err != nil {
			t.Fatal(err)
		}
	}
	evs, _ := p.ReplicaEvents(ctx, "hello-go", start)
	desired := kubetest.DesiredSteps(evs)
	if fmt.Sprint(desired) != "[2 4 1]" {
		t.Errorf("desired %v", desired)
	}
	// 0 would be copied into the HPA's minReplicas, which Kubernetes refuses: refused at once.
	if err := p.Scale(ctx, "hello-go", 0); err == nil || !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "minReplicas") {
		t.Errorf("scale to 0: %v", err)
	}
	nd := platform.Function{Name: "hello-py", Workload: "hello", Language: "python", Replicas: 3,
		Settings: map[string]string{"executor": "newdeploy", "env_image": "ghcr.io/fission/python-env", "code_file": "hello.py", "entrypoint": "hello.main"}}
	if err := p.Deploy(ctx, nd); err != nil {
		t.Fatal(err)
	}
	pool := platform.Function{Name: "hello-pool", Workload: "hello", Language: "python",
		Settings: map[string]string{"executor": "poolmgr", "env_image": "ghcr.io/fission/python-env", "code_file": "hello.py", "pool_size": "2"}}
	if err := p.Deploy(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitReplicas(ctx, "hello-pool", 2); err != nil {
		t.Errorf("the poolmgr's warm pool: %v", err)
	}
	if err := p.Scale(ctx, "hello-pool", 3); err == nil || !strings.Contains(err.Error(), "poolmgr executor has no replica count") {
		t.Errorf("scale poolmgr: %v", err)
	}
	pkg, _ := cl.Dynamic.Resource(fission.PackageGVR).Namespace(cl.Namespace).Get(ctx, "hello-py", metav1.GetOptions{})
	if lit, _, _ := unstructured.NestedString(pkg.Object, "spec", "deployment", "literal"); lit == "" {
		t.Errorf("package %v", pkg.Object)
	}
	if u, _ := p.Endpoint(ctx, "hello-py"); !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.HasSuffix(u, "/hello-py") {
		t.Errorf("endpoint %q", u)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, g := range fission.Kinds() {
		l, _ := cl.Dynamic.Resource(g).Namespace(cl.Namespace).List(ctx, metav1.ListOptions{})
		if len(l.Items) != 0 {
			t.Errorf("%d %s left", len(l.Items), g.Resource)
		}
	}
	pods, _ := cl.Client.CoreV1().Pods(cl.Namespace).List(ctx, metav1.ListOptions{})
	if len(pods.Items) != 0 {
		t.Errorf("%d pods left", len(pods.Items))
	}
}

// A newdeploy function is deployed once the Service Fission's executor made for it lists its pod:
// the router reaches the function through that Service, and a Ready pod the Service does not list
// yet gets no call. The stand-in makes this function's Service 2 s after the pod is Ready.
func TestDeployWaitsForTheFunctionsService(t *testing.T) {
	p, ctx, _ := open(t, "fi-svc")
	fn := platform.Function{Name: "late-svc-py", Workload: "hello", Language: "python", Replicas: 1,
		Settings: map[string]string{"executor": "newdeploy", "env_image": "ghcr.io/fission/python-env", "code_file": "hello.py", "entrypoint": "hello.main"}}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	svcs, err := p.Cluster.Client.CoreV1().Services(p.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: "executorType=newdeploy,functionName=late-svc-py"})
	if err != nil || len(svcs.Items) != 1 {
		t.Fatalf("after Deploy, the function's Services: %d (%v), want Fission's one", len(svcs.Items), err)
	}
	slices, err := p.Cluster.Client.DiscoveryV1().EndpointSlices(p.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=" + svcs.Items[0].Name})
	ready := 0
	for _, sl := range slices.Items {
		for _, e := range sl.Endpoints {
			if e.Conditions.Ready == nil || *e.Conditions.Ready {
				ready++
			}
		}
	}
	if err != nil || ready != 1 {
		t.Errorf("after Deploy, the Service %s lists %d ready endpoints (%v), want its pod", svcs.Items[0].Name, ready, err)
	}
}

// A forced cold start leaves the newdeploy function's Deployment at zero
// with no pod; what the executor then does for a request starts a new pod,
// which StartedSince names. A function with min_scale above 0 is never cold
// on a real Fission (its idle reaper stops at min_scale): refused, with the
// reason.
func TestMakeColdNewdeploy(t *testing.T) {
	p, ctx, _ := open(t, "fi-cold")
	defer p.Close(ctx)
	warm := platform.Function{Name: "hello-warm", Workload: "hello", Language: "python", Replicas: 2,
		Settings: map[string]string{"executor": "newdeploy", "env_image": "ghcr.io/fission/python-env", "code_file": "hello.py", "entrypoint": "hello.main"}}
	if err := p.Deploy(ctx, warm); err != nil {
		t.Fatal(err)
	}
	if _, err := p.MakeCold(ctx, "hello-warm"); err == nil || !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "min_scale is 2") {
		t.Errorf("min_scale 2: %v", err)
	}
	nd := platform.Function{Name: "hello-nd", Workload: "hello", Language: "python", Replicas: 0,
		Settings: map[string]string{"executor": "newdeploy", "env_image": "ghcr.io/fission/python-env", "code_file": "hello.py", "entrypoint": "hello.main"}}
	if err := p.Deploy(ctx, nd); err != nil {
		t.Fatal(err)
	}
	// The executor brings a new function up with one pod whatever its min_scale, and says so in
	// the Function's status: MakeCold waits for that the first time, then scales it to zero.
	how, err := p.MakeCold(ctx, "hello-nd")
	if err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	if c := p.Watch.Counts("hello-nd"); c.Desired+c.Ready+c.Pending+c.Terminating != 0 {
		t.Fatalf("after MakeCold: %+v", c)
	}
	time.Sleep(300 * time.Millisecond) // stand-in passes: the executor leaves a reaped Deployment alone
	if c := p.Watch.Counts("hello-nd"); c.Desired != 0 {
		t.Fatalf("scaled back up without a request: %+v", c)
	}
	executorServes(ctx, t, p, "hello-nd", 0)
	started, err := p.StartedSince(ctx, "hello-nd", since)
	if err != nil || len(started) != 1 || started[0].Ready.IsZero() {
		t.Fatalf("started %+v %v", started, err)
	}
	t.Log(how)
}

// poolmgr's cold start is the specialisation of a warm pool pod: MakeCold
// waits for Fission's idle reaper to take the function's served pod away
// and for a ready generic pod in the pool; StartedSince then names the pod
// specialised after it (kind specialisation), not the reaped one. An empty
// pool has no warm pod to specialise: refused.
func TestMakeColdPoolmgr(t *testing.T) {
	p, ctx, _ := open(t, "fi-pool")
	defer p.Close(ctx)
	set := map[string]string{"executor": "poolmgr", "env_image": "ghcr.io/fission/python-env", "code_file": "hello.py", "pool_size": "1", "idle_timeout": "1"}
	if err := p.Deploy(ctx, platform.Function{Name: "hello-pool", Workload: "hello", Language: "python", Settings: set}); err != nil {
		t.Fatal(err)
	}
	first := specialise(ctx, t, p, "hello-pool") // the first request
	since := time.Now()
	type made struct {
		how platform.Cold
		err error
	}
	done := make(chan made, 1)
	go func() { how, err := p.MakeCold(ctx, "hello-pool"); done <- made{how, err} }()
	time.Sleep(1500 * time.Millisecond)
	select {
	case m := <-done:
		t.Fatalf("cold while a pod still served the function: %+v", m)
	default:
	}
	reap(ctx, t, p, first)
	m := <-done
	if m.err != nil || !m.how.OnPath || !strings.Contains(m.how.How, "idle reaper") {
		t.Fatalf("MakeCold: %+v", m)
	}
	second := specialise(ctx, t, p, "hello-pool") // the cold request: the pool's replacement pod
	started, err := p.StartedSince(ctx, "hello-pool", since)
	if err != nil || len(started) != 1 || started[0].ID != second || started[0].Kind != platform.KindSpecialisation || second == first {
		t.Fatalf("started %+v %v (first %s, second %s)", started, err, first, second)
	}
	empty := map[string]string{"executor": "poolmgr", "env_image": "ghcr.io/fission/python-env", "code_file": "hello.py", "pool_size": "0"}
	if err := p.Deploy(ctx, platform.Function{Name: "hello-nopool", Workload: "hello", Language: "python", Settings: empty}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.MakeCold(ctx, "hello-nopool"); !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "pool_size is 0") {
		t.Errorf("an empty pool: %v", err)
	}
}

// Deploy returns once Fission's router serves the function's route (its
// HTTPTrigger's condition Ready), also for a function with min_scale 0,
// whose Deploy waits for no pod: called at once, the router has the route
// (no 404) and holds the call for the executor. Found on the real node: a
// probe right after such a deploy was answered "404 page not found".
func TestDeployWaitsForTheRoute(t *testing.T) {
	p, ctx, _ := open(t, "fi-route")
	defer p.Close(ctx)
	fn := platform.Function{Name: "hello-zero", Workload: "hello", Language: "python", Replicas: 1,
		Settings: map[string]string{"executor": "newdeploy", "env_image": "ghcr.io/fission/python-env", "code_file": "hello.py", "entrypoint": "hello.main", "max_scale": "1"}}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	u, _ := p.Endpoint(ctx, fn.Name)
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		t.Fatalf("called right after Deploy: %s (the router had no route yet)", resp.Status)
	}
	tr, err := p.Cluster.Dynamic.Resource(fission.TriggerGVR).Namespace(p.Namespace()).Get(ctx, fn.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := fission.TriggerServing(tr); !ok {
		t.Errorf("the trigger is not marked serving for its generation %d: its condition Ready is %s", tr.GetGeneration(), why)
	}
}

// A misspelt field is refused by the API server (strict validation
// against the CRDs written from Fission's types).
func TestStrictValidation(t *testing.T) {
	cl := kubetest.Cluster(t)
	kubetest.Apply(t, cl, "testdata/fission-crds.yaml")
	cfg, _ := fission.ParseConfig(platform.Config{RunID: "v"})
	fn := platform.Function{Name: "f", Workload: "hello", Language: "go", Replicas: 1}
	s, _ := fission.ParseSettings(fn, "")
	objs, _ := cfg.Objects(cl.Namespace, fn, s)
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"}
	f := objs[0]
	if _, err := cl.Dynamic.Resource(fission.FunctionGVR).Namespace(cl.Namespace).Create(ctx(t), f, dry); err != nil {
		t.Fatalf("function: %v", err)
	}
	f.Object["spec"].(map[string]any)["InvokeStrategy"].(map[string]any)["ExecutionStrategy"].(map[string]any)["Minscale"] = int64(1)
	if _, err := cl.Dynamic.Resource(fission.FunctionGVR).Namespace(cl.Namespace).Create(ctx(t), f, dry); err == nil || !strings.Contains(err.Error(), "Minscale") {
		t.Errorf("misspelt field accepted: %v", err)
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// Fission watches only its configured namespaces (static tenancy: FISSION_DEFAULT_NAMESPACE and
// FISSION_RESOURCE_NAMESPACES, read from its executor's Deployment): a run elsewhere is refused
// when the platform opens, instead of waiting for pods that never come.
func TestNamespaceFissionDoesNotWatch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := kubetest.Namespace(t)
	cl, err := kube.Connect(kube.Options{Kubeconfig: kubetest.Kubeconfig(t), Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	fins := ns + "-fi"
	if _, err := cl.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fins}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Client.CoreV1().Namespaces().Delete(context.Background(), fins, metav1.DeleteOptions{}) })
	zero := int32(0)
	sel := map[string]string{"svc": "executor"}
	exec := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "executor"}, Spec: appsv1.DeploymentSpec{Replicas: &zero,
		Selector: &metav1.LabelSelector{MatchLabels: sel}, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "executor", Image: "ghcr.io/fission/fission-bundle:v1.27.0",
				Env: []corev1.EnvVar{{Name: "FISSION_DEFAULT_NAMESPACE", Value: "default"}, {Name: "FISSION_RESOURCE_NAMESPACES", Value: "team-a,team-b,"}}}}}}}}
	if _, err := cl.Client.AppsV1().Deployments(fins).Create(ctx, exec, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg, err := fission.ParseConfig(platform.Config{RunID: "fi-ns", Options: map[string]any{"kubeconfig": kubetest.Kubeconfig(t),
		"namespace": ns, "fission_namespace": fins}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = fission.Open(ctx, cfg)
	if err == nil || !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "Fission watches only default, team-a, team-b") {
		t.Errorf("open in %s: %v", ns, err)
	}
}

// A router that is down, or one that is not ready (503 with the real router's words), is refused when the
// platform opens, in one sentence naming router_url, before anything is deployed.
func TestRouterNotReady(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := kubetest.Namespace(t)
	starting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "router mux not yet built", http.StatusServiceUnavailable)
	}))
	defer starting.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close() // nothing listens at its address now
	for url, want := range map[string]string{
		starting.URL: "503 Service Unavailable: router mux not yet built",
		down.URL:     "connection refused",
	} {
		cfg, err := fission.ParseConfig(platform.Config{RunID: "fi-router", Options: map[string]any{"kubeconfig": kubetest.Kubeconfig(t),
			"namespace": ns, "router_url": url}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = fission.Open(ctx, cfg)
		if err == nil || !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "platform.options.router_url: Fission's router at "+url+" is not ready (") ||
			!strings.Contains(err.Error(), want) {
			t.Errorf("router %s: %v", url, err)
		}
	}
}

// A function Fission builds from source (settings.builder_image: the Environment's builder, the
// Package's source and build command) deploys once buildermgr marks its package built, and a build
// that fails ends the deploy with the builder's log (the package's status.buildlog), not a wait for
// pods that never come. The stand-in buildermgr moves the package's status as Fission's does.
func TestDeployWaitsForFissionsBuild(t *testing.T) {
	p, ctx, dir := open(t, "fi-build")
	set := map[string]string{"executor": "newdeploy", "env_image": "ko.local/fission/go-env:1", "builder_image": "ko.local/fission/go-builder:1",
		"code_file": "function.go", "min_scale": "1", "max_scale": "1", "grace_period": "2"}
	if err := os.WriteFile(filepath.Join(dir, "function.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.Deploy(ctx, platform.Function{Name: "built", Workload: "hello", Language: "go", Settings: set}); err != nil {
		t.Fatal(err)
	}
	u, err := p.Cluster.Dynamic.Resource(fission.PackageGVR).Namespace(p.Namespace()).Get(ctx, "built", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st, _, _ := unstructured.NestedString(u.Object, "status", "buildstatus"); st != "succeeded" {
		t.Errorf("Deploy returned with the package's build status %q", st)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.go"), []byte("fail the build\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set["code_file"] = "broken.go"
	err = p.Deploy(ctx, platform.Function{Name: "broken", Workload: "hello", Language: "go", Settings: set})
	if err == nil || !strings.Contains(err.Error(), "Fission's build of its package failed") || !strings.Contains(err.Error(), "expected 'package', found fail") {
		t.Errorf("a failed build: %v, want the build's failure with its log", err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// target_cpu makes Fission create an HPA that scales on CPU; on a cluster that serves no
// metrics.k8s.io (this control plane) it would never scale while the run measured a function at its
// minimum: refused before anything of the function is created, as Knative's class hpa is (#59).
func TestTargetCPUWithoutTheMetricsAPIIsRefused(t *testing.T) {
	p, ctx, _ := open(t, "fi-hpa")
	fn := platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 1,
		Settings: map[string]string{"min_scale": "1", "max_scale": "3", "target_cpu": "50"}}
	err := p.Deploy(ctx, fn)
	if err == nil || !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "metrics.k8s.io") || !strings.Contains(err.Error(), "settings.target_cpu") {
		t.Fatalf("target_cpu without the metrics API: %v", err)
	}
	fns, err := p.Cluster.Dynamic.Resource(fission.FunctionGVR).Namespace(p.Namespace()).List(ctx, metav1.ListOptions{})
	if err != nil || len(fns.Items) != 0 {
		t.Errorf("functions after the refusal: %v %v", fns, err)
	}
}
