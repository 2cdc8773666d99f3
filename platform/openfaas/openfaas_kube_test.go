//go:build kube

package openfaas_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
	"github.com/faasbench/faasbench/platform/openfaas"
)

// setup is what a test's OpenFaaS install has.
type setup struct {
	// secret: the gateway's password is in the basic-auth secret of the
	// OpenFaaS namespace, as the Helm chart makes it.
	secret bool
	// scaleFromZero: the gateway Deployment's scale_from_zero setting
	// ("" : no gateway Deployment to read).
	scaleFromZero string
	// options are more platform options.
	options map[string]any
}

func open(t *testing.T, run string, secret bool) (*openfaas.Platform, *gatewayStandIn, context.Context) {
	return openWith(t, run, setup{secret: secret, scaleFromZero: "true"})
}

func openWith(t *testing.T, run string, su setup) (*openfaas.Platform, *gatewayStandIn, context.Context) {
	t.Helper()
	p, g, ctx, err := tryOpen(t, run, su)
	if err != nil {
		t.Fatal(err)
	}
	return p, g, ctx
}

func tryOpen(t *testing.T, run string, su setup) (*openfaas.Platform, *gatewayStandIn, context.Context, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	ns := kubetest.Namespace(t)
	probe, err := kube.Connect(kube.Options{Kubeconfig: kubetest.Kubeconfig(t), Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	g, url := startGateway(t, probe, ns)
	ofns := ns + "-of"
	if _, err := probe.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ofns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = probe.Client.CoreV1().Namespaces().Delete(context.Background(), ofns, metav1.DeleteOptions{})
	})
	if su.secret {
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "basic-auth"}, StringData: map[string]string{"basic-auth-user": "admin", "basic-auth-password": "s3cret"}}
		if _, err := probe.Client.CoreV1().Secrets(ofns).Create(ctx, sec, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if su.scaleFromZero != "" {
		// The Helm chart's gateway Deployment: the gateway container's environment holds
		// scale_from_zero (no replicas: only its settings are read).
		zero := int32(0)
		sel := map[string]string{"app": "gateway"}
		gw := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "gateway"}, Spec: appsv1.DeploymentSpec{Replicas: &zero,
			Selector: &metav1.LabelSelector{MatchLabels: sel}, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "gateway", Image: "ghcr.io/openfaas/gateway:0.27.14",
					Env: []corev1.EnvVar{{Name: "scale_from_zero", Value: su.scaleFromZero}}}}}}}}
		if _, err := probe.Client.AppsV1().Deployments(ofns).Create(ctx, gw, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	opts := map[string]any{"kubeconfig": kubetest.Kubeconfig(t), "namespace": ns, "gateway_url": url,
		"openfaas_namespace": ofns, "ready_timeout": "60s"}
	for k, v := range su.options {
		opts[k] = v
	}
	cfg, err := openfaas.ParseConfig(run, opts)
	if err != nil {
		t.Fatal(err)
	}
	p, err := openfaas.Open(ctx, cfg)
	return p, g, ctx, err
}

// systemCalls are the gateway's API calls, without invocations.
func systemCalls(g *gatewayStandIn) string { return strings.Join(g.callsOf(""), ", ") }

// Deploy, scale, cold (CE: the Deployment to 0 through Kubernetes, the
// gateway scales from zero), remove and close through the gateway API; the
// pods made behind it are watched on the control plane although
// faas-netes labels the Deployment with faas_function only.
func TestThroughTheGateway(t *testing.T) {
	p, g, ctx := open(t, "of-run", true)
	start := time.Now()
	fn := platform.Function{Name: "prime-go", Workload: "prime", Language: "go", Replicas: 2, Concurrency: 4, MemoryMB: 128,
		Env: map[string]string{"X": "1"}, Settings: map[string]string{"exec_timeout": "30s"}}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	d, err := p.Cluster.Client.AppsV1().Deployments(p.Namespace()).Get(ctx, "prime-go", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		env[e.Name] = e.Value
	}
	tl := d.Spec.Template.Labels
	if env["mode"] != "http" || env["upstream_url"] != "http://127.0.0.1:8082" || env["FB_PORT"] != "8082" || env["max_inflight"] != "4" ||
		env["exec_timeout"] != "30s" || env["X"] != "1" || tl["com.openfaas.scale.min"] != "2" || tl[kube.LabelRunID] != "of-run" {
		t.Errorf("what faas-netes got: template labels %v env %v", tl, env)
	}
	// faas-netes gives the container its own pull policy (Always, the chart's default), not the
	// platform's pull_policy option (IfNotPresent by default): a function request carries none.
	if pp := d.Spec.Template.Spec.Containers[0].ImagePullPolicy; pp != corev1.PullAlways {
		t.Errorf("the function's pull policy %q: faas-netes would give its own, Always", pp)
	}
	if len(d.Labels) != 1 || d.Labels["faas_function"] != "prime-go" {
		t.Errorf("the stand-in labels the Deployment as faas-netes does not: %v", d.Labels)
	}
	// Deploy returned once both pods answered as the function, not when they were Ready
	// (of-watchdog answered 500 for 300 ms after, its upstream not yet listening): the next calls are the function's.
	for i := 0; i < 10; i++ {
		if r := invoke(ctx, t, p, "prime-go"); r.status != 200 || r.instance == "" {
			t.Fatalf("call %d after Deploy: %+v", i, r)
		}
	}
	if w := strings.Join(p.Warnings(), " "); !strings.Contains(w, "max_inflight 4: of-watchdog answers 429 at once") {
		t.Errorf("warnings %q", w)
	}
	u, _ := p.Endpoint(ctx, "prime-go")
	if !strings.HasSuffix(u, "/function/prime-go."+p.Namespace()+"/") {
		t.Errorf("endpoint %q", u)
	}
	if err := p.Scale(ctx, "prime-go", 4); err != nil {
		t.Fatal(err)
	}
	before := podNames(ctx, t, p, "prime-go")
	// A function that listens before its pod's first readiness probe (faas-netes probes after
	// 2 s by default; KWOK makes pods Ready at once): the held request reaches the function.
	g.upstreams.SetDelay(0)
	sentAt := time.Now()
	// CE never has a function at zero (its faas-netes raises 0 back to 1): MakeCold removes
	// the function and deploys it anew, and the call is held until the new pod is ready.
	cold, err := p.MakeCold(ctx, "prime-go")
	if err != nil || !cold.OnPath || !cold.Deployed || !strings.Contains(cold.How, "deployed anew") {
		t.Fatalf("%+v %v", cold, err)
	}
	if now := podNames(ctx, t, p, "prime-go"); slices.ContainsFunc(now, func(n string) bool { return slices.Contains(before, n) }) {
		t.Fatalf("pods from before MakeCold are left: %v (before %v)", now, before)
	}
	// The next call waits at the gateway for the new pod, and lands on it.
	r := invoke(ctx, t, p, "prime-go")
	started, _ := p.StartedSince(ctx, "prime-go", sentAt)
	if r.status != 200 || r.cold != "1" || slices.Contains(before, r.instance) || len(started) == 0 {
		t.Errorf("the call after MakeCold: %+v; pods before %v, started since %v", r, before, started)
	}
	evs, _ := p.ReplicaEvents(ctx, "prime-go", start)
	desired := kubetest.DesiredSteps(evs)
	// Scale to 4 made 4 the function's fixed count (its min and max): deployed anew, it has 4 again.
	if fmt.Sprint(desired) != "[2 4 0 4]" && fmt.Sprint(desired) != "[2 4 4]" {
		t.Errorf("desired %v", desired)
	}
	// A redeploy goes through PUT; a name taken by someone else is refused.
	// Deploy returns once the new template has rolled out: no pod from before the PUT is left (the
	// real 2022 gateway answers the PUT while the old pods still serve; the adapter waited for nothing).
	fn.Env["X"] = "2"
	fn.Replicas = 1
	old := kubetest.LivePods(ctx, t, p.Cluster, p.Namespace(), p.Selector("prime-go"))
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	if now := kubetest.LivePods(ctx, t, p.Cluster, p.Namespace(), p.Selector("prime-go")); len(now) != 1 || slices.Contains(old, now[0]) {
		t.Errorf("after the redeploy returned: pods %v (before it: %v), want one new pod", now, old)
	}
	// Removed, then deployed again at once (a run's next repetition): Remove returns once the gateway
	// no longer lists the function (faas-netes deletes with foreground propagation and lists from a
	// cache), so the deploy creates it (POST) rather than updating a function being deleted, whose
	// update fails on its deleted Service (seen on the real node at a repetition's deploy).
	if err := p.Remove(ctx, "prime-go"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.function(ctx, "prime-go"); !apierrors.IsNotFound(err) {
		t.Errorf("after Remove the gateway still lists prime-go: %v", err)
	}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatalf("deployed again right after its removal: %v", err)
	}
	if err := p.Remove(ctx, "prime-go"); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// The scale of a function of fixed replicas is an update of its min and max (PUT), not a scale-function.
	want := []string{"GET /system/namespaces", "GET /system/function/prime-go", "POST /system/functions", "PUT /system/functions",
		"DELETE /system/functions", "GET /system/function/prime-go", "POST /system/functions", "GET /system/function/prime-go", "PUT /system/functions", "DELETE /system/functions",
		"GET /system/function/prime-go", "POST /system/functions", "DELETE /system/functions", "GET /system/function/prime-go"}
	if got := strings.Join(g.callsOf(""), ", "); !strings.Contains(got, "GET /function/") {
		t.Errorf("no invocation reached the gateway: %s", got)
	}
	var sys []string // Remove's polls of the gateway, however many, as one
	for _, c := range g.callsOf("") {
		if !strings.Contains(c, " /function/") && (len(sys) == 0 || c != sys[len(sys)-1]) {
			sys = append(sys, c)
		}
	}
	if got := strings.Join(sys, ", "); got != strings.Join(want, ", ") {
		t.Errorf("gateway calls:\n %s\nwant\n %s", got, strings.Join(want, ", "))
	}
	pods, _ := p.Cluster.Client.CoreV1().Pods(p.Namespace()).List(ctx, metav1.ListOptions{})
	if len(pods.Items) != 0 {
		t.Errorf("%d pods left", len(pods.Items))
	}
}

type reply struct {
	status         int
	instance, cold string
}

func invoke(ctx context.Context, t *testing.T, p *openfaas.Platform, name string) reply {
	t.Helper()
	u, _ := p.Endpoint(ctx, name)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	resp, err := (&http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return reply{status: resp.StatusCode, instance: resp.Header.Get("X-Fb-Instance"), cold: resp.Header.Get("X-Fb-Cold")}
}

func podNames(ctx context.Context, t *testing.T, p *openfaas.Platform, name string) []string {
	return kubetest.LivePods(ctx, t, p.Cluster, p.Namespace(), p.Selector(name))
}

func TestGatewayAuthAndForeignFunctions(t *testing.T) {
	p, g, ctx := open(t, "of-auth", false)
	defer p.Close(context.Background())
	if w := strings.Join(p.Warnings(), " "); !strings.Contains(w, "no gateway password") {
		t.Errorf("warnings %q", w)
	}
	err := p.Deploy(ctx, platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 1})
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") || !strings.Contains(err.Error(), openfaas.PasswordEnv) {
		t.Errorf("no password: %v", err)
	}
	t.Setenv(openfaas.PasswordEnv, "s3cret")
	p2, g2, ctx2 := open(t, "of-auth2", false)
	defer p2.Close(context.Background())
	if c := g.callsOf(""); len(c) != 2 || c[1] != "GET /system/function/hello-go" {
		t.Errorf("calls without a password: %v", g.calls)
	}
	theirs := openfaas.FunctionDeployment{Service: "taken", Image: "x", Namespace: p2.Namespace()}
	gw := &openfaas.Gateway{URL: g2.url, User: "admin", Password: "s3cret", HTTP: &http.Client{Timeout: 10 * time.Second}}
	if err := gw.Deploy(ctx2, theirs); err != nil {
		t.Fatal(err)
	}
	err = p2.Deploy(ctx2, platform.Function{Name: "taken", Workload: "hello", Language: "go", Replicas: 1})
	if err == nil || !strings.Contains(err.Error(), "not made by faasbench") {
		t.Errorf("foreign function: %v", err)
	}
	f, _ := p2.Fingerprint(ctx2)
	if info, ok := f["gateway_info"].(openfaas.GatewayInfo); !ok || info.Provider.Provider != "faas-netes-ce" || info.Version.Release != "0.27.14" {
		t.Errorf("fingerprint %v", f["gateway_info"])
	}
}

// A secret value reaches the function as an OpenFaaS secret: a labelled
// Secret in the function's namespace, mounted as a file by faas-netes; the
// Deployment holds no literal value, and the Secret goes with the function.
func TestSecretEnvAsAnOpenFaaSSecret(t *testing.T) {
	p, _, ctx := open(t, "of-secret", true)
	const pw = "pw-0a1b2c3d"
	fn := platform.Function{Name: "query-python", Workload: "query", Language: "python", Replicas: 1,
		Env: map[string]string{"FB_DB_PASSWORD": pw, "FB_DB_HOST": "db"}, SecretEnv: []string{"FB_DB_PASSWORD"}}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	d, err := p.Cluster.Client.AppsV1().Deployments(p.Namespace()).Get(ctx, "query-python", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ct := d.Spec.Template.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range ct.Env {
		env[e.Name] = e.Value
		if e.Value == pw {
			t.Errorf("the password is a literal in the Deployment (%s)", e.Name)
		}
	}
	if env["FB_SECRETS_DIR"] != openfaas.SecretsMountPath || len(ct.VolumeMounts) != 1 || ct.VolumeMounts[0].MountPath != openfaas.SecretsMountPath {
		t.Errorf("env %v mounts %v", env, ct.VolumeMounts)
	}
	sec, err := p.Cluster.Client.CoreV1().Secrets(p.Namespace()).Get(ctx, kube.EnvSecretName("query-python"), metav1.GetOptions{})
	if err != nil || string(sec.Data["FB_DB_PASSWORD"]) != pw || sec.Labels[kube.LabelManagedBy] != kube.ManagedBy {
		t.Fatalf("secret: %+v %v", sec, err)
	}
	if err := p.Remove(ctx, "query-python"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Cluster.Client.CoreV1().Secrets(p.Namespace()).Get(ctx, sec.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("secret after Remove: %v", err)
	}
}

// What a killed run leaves on OpenFaaS is found by label: faas-netes labels only the pod template,
// so cleaning by label must take the Deployment (whose ReplicaSet would make the pods again) and
// its Service too, and nothing else's.
func TestCleanAfterAKilledRun(t *testing.T) {
	p, g, ctx := open(t, "of-killed", true)
	if err := p.Deploy(ctx, platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 2}); err != nil {
		t.Fatal(err)
	}
	// Someone else's function in the same namespace, made through the gateway.
	gw := &openfaas.Gateway{URL: g.url, User: "admin", Password: "s3cret", HTTP: &http.Client{Timeout: 10 * time.Second}}
	if err := gw.Deploy(ctx, openfaas.FunctionDeployment{Service: "theirs", Image: "x", Namespace: p.Namespace()}); err != nil {
		t.Fatal(err)
	}
	// The run is killed: no Remove, no Close. platform clean deletes what carries its labels.
	if _, err := p.Cluster.Clean(ctx, p.Namespace(), kube.Selector("of-killed", ""), nil); err != nil {
		t.Fatal(err)
	}
	if err := p.Cluster.WaitNoPods(ctx, p.Namespace(), kube.Selector("of-killed", ""), time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Cluster.Client.AppsV1().Deployments(p.Namespace()).Get(ctx, "hello-go", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the run's Deployment: %v", err)
	}
	if _, err := p.Cluster.Client.CoreV1().Services(p.Namespace()).Get(ctx, "hello-go", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the run's Service: %v", err)
	}
	for _, get := range []func() error{
		func() error {
			_, err := p.Cluster.Client.AppsV1().Deployments(p.Namespace()).Get(ctx, "theirs", metav1.GetOptions{})
			return err
		},
		func() error {
			_, err := p.Cluster.Client.CoreV1().Services(p.Namespace()).Get(ctx, "theirs", metav1.GetOptions{})
			return err
		},
	} {
		if err := get(); err != nil {
			t.Errorf("someone else's function was touched: %v", err)
		}
	}
	_ = p.Close(context.Background())
}

// A function of fixed replicas keeps the count a cell scaled it to while OpenFaaS's own autoscaling acts
// on it: AlertManager's alerts (the gateway's /system/alert) set a function to its labels' range, a
// resolved alert to com.openfaas.scale.min, whatever /system/scale-function had set. Seen on the real
// node: seed 000's replicas 2 and 4 were set back to 1 a dozen times in ten minutes. Scale now sets the
// function's min and max to the count, as an OpenFaaS user fixes replicas.
func TestFixedReplicasSurviveAlertManager(t *testing.T) {
	p, g, ctx := open(t, "of-alerts", true)
	defer p.Close(context.Background())
	if err := p.Deploy(ctx, platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 1}); err != nil {
		t.Fatal(err)
	}
	if err := p.Scale(ctx, "hello-go", 3); err != nil {
		t.Fatal(err)
	}
	deps := p.Cluster.Client.AppsV1().Deployments(p.Namespace())
	for _, status := range []string{"resolved", "firing", "resolved"} {
		body := `{"status":"` + status + `","receiver":"scale-up","alerts":[{"status":"` + status + `","labels":{"alertname":"APIHighInvocationRate","function_name":"hello-go.` + p.Namespace() + `"}}]}`
		// AlertManager sends a notification again while the gateway answers 500 (a scale it could not
		// write: faas-netes writes once); five tries here.
		var resp *http.Response
		for try := 0; try < 5 && (resp == nil || resp.StatusCode == http.StatusInternalServerError); try++ {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.url+"/system/alert", strings.NewReader(body))
			req.SetBasicAuth(g.user, g.pw)
			var err error
			if resp, err = http.DefaultClient.Do(req); err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("alert %s: HTTP %d", status, resp.StatusCode)
		}
		d, err := deps.Get(ctx, "hello-go", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if *d.Spec.Replicas != 3 {
			t.Errorf("after a %s alert the function has %d replicas, want the 3 it was scaled to (labels %v)", status, *d.Spec.Replicas, d.Spec.Template.Labels)
		}
	}
}
