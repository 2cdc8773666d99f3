//go:build kube

package openfaas_test

import (
	"context"
	"fmt"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/internal/kubetest"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/openfaas"
)

func open(t *testing.T, run string, secret bool) (*openfaas.Platform, *gatewayStandIn, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	ns := kubetest.Namespace(t)
	probe, err := kube.Connect(kube.Options{Kubeconfig: kubetest.Kubeconfig(t), Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	g, url := startGateway(t, probe)
	// The gateway's password: in the basic-auth secret of the OpenFaaS
	// namespace, as the Helm chart makes it.
	ofns := ns + "-of"
	if secret {
		if _, err := probe.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ofns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = probe.Client.CoreV1().Namespaces().Delete(context.Background(), ofns, metav1.DeleteOptions{})
		})
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "basic-auth"}, StringData: map[string]string{"basic-auth-user": "admin", "basic-auth-password": "s3cret"}}
		if _, err := probe.Client.CoreV1().Secrets(ofns).Create(ctx, sec, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := openfaas.ParseConfig(run, map[string]any{"kubeconfig": kubetest.Kubeconfig(t), "namespace": ns, "gateway_url": url,
		"openfaas_namespace": ofns, "ready_timeout": "60s"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := openfaas.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p, g, ctx
}

// Deploy, scale, cold (scale to zero), remove and close through the
// gateway API; the pods made behind it are watched on the control plane.
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
	if env["mode"] != "http" || env["upstream_url"] != "http://127.0.0.1:8082" || env["FB_PORT"] != "8082" || env["max_inflight"] != "4" ||
		env["exec_timeout"] != "30s" || env["X"] != "1" || d.Labels["com.openfaas.scale.min"] != "2" || d.Labels[kube.LabelRunID] != "of-run" {
		t.Errorf("what faas-netes got: labels %v env %v", d.Labels, env)
	}
	u, _ := p.Endpoint(ctx, "prime-go")
	if !strings.HasSuffix(u, "/function/prime-go."+p.Namespace()+"/") {
		t.Errorf("endpoint %q", u)
	}
	if err := p.Scale(ctx, "prime-go", 4); err != nil {
		t.Fatal(err)
	}
	how, err := p.MakeCold(ctx, "prime-go")
	if err != nil || !strings.Contains(how, "scaled to 0 through the gateway") {
		t.Fatalf("%q %v", how, err)
	}
	evs, _ := p.ReplicaEvents(ctx, "prime-go", start)
	desired := kubetest.DesiredSteps(evs)
	if fmt.Sprint(desired) != "[2 4 0]" {
		t.Errorf("desired %v", desired)
	}
	// A redeploy goes through PUT; a name taken by someone else is refused.
	fn.Env["X"] = "2"
	fn.Replicas = 1
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	if err := p.Remove(ctx, "prime-go"); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"GET /system/function/prime-go", "POST /system/functions", "POST /system/scale-function/prime-go",
		"POST /system/scale-function/prime-go", "GET /system/function/prime-go", "PUT /system/functions", "DELETE /system/functions"}
	if got := strings.Join(g.calls, ", "); got != strings.Join(want, ", ") {
		t.Errorf("gateway calls:\n %s\nwant\n %s", got, strings.Join(want, ", "))
	}
	pods, _ := p.Cluster.Client.CoreV1().Pods(p.Namespace()).List(ctx, metav1.ListOptions{})
	if len(pods.Items) != 0 {
		t.Errorf("%d pods left", len(pods.Items))
	}
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
	if len(g.calls) != 1 || g.calls[0] != "GET /system/function/hello-go" {
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
	if info, ok := f["gateway_info"].(openfaas.GatewayInfo); !ok || info.Provider.Provider != "faas-netes" || info.Version.Release != "0.27.12" {
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
