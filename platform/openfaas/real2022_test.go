//go:build openfaas2022

package openfaas_test

// faasbench's gateway client and deployment requests against the real
// OpenFaaS gateway (openfaas/faas 208b1b22, 2022-10-24) and faas-netes
// (98474109, 2022-10-20), built from their pinned source and run by
// deploy/openfaas/api-test.sh on a real control plane with KWOK's node:
// the system API only (KWOK's pods run nothing, so no call goes to a pod).
// What the 2022 code does differently from the stand-in (written from CE
// 0.27.14 and faas-netes 0.18.17) is asserted here as the 2022 code does it.

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/httpapi"
	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/openfaas"
)

const (
	gatewayCommit2022 = "208b1b223581df90d5ad16efe28d4f92b4f7c5e4"
	netesCommit2022   = "98474109bff89993715a82e9a4eb5b8ae359668c"
)

type real2022 struct {
	gw  *openfaas.Gateway
	cl  *kube.Cluster
	ns  string
	cfg openfaas.Config
}

func openReal2022(t *testing.T) (real2022, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	env := map[string]string{}
	for _, k := range []string{"FB_OPENFAAS_URL", "FB_OPENFAAS_NAMESPACE", "FB_OPENFAAS_PASSWORD_FILE", "FB_KUBECONFIG"} {
		if env[k] = os.Getenv(k); env[k] == "" {
			t.Fatalf("%s is not set: run these tests with deploy/openfaas/api-test.sh", k)
		}
	}
	pw, err := os.ReadFile(env["FB_OPENFAAS_PASSWORD_FILE"])
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kube.Connect(kube.Options{Kubeconfig: env["FB_KUBECONFIG"], Namespace: env["FB_OPENFAAS_NAMESPACE"]})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := openfaas.ParseConfig("of2022", map[string]any{"kubeconfig": env["FB_KUBECONFIG"], "namespace": env["FB_OPENFAAS_NAMESPACE"],
		"gateway_url": env["FB_OPENFAAS_URL"], "edition": "pro"})
	if err != nil {
		t.Fatal(err)
	}
	return real2022{gw: &openfaas.Gateway{URL: env["FB_OPENFAAS_URL"], User: "admin", Password: strings.TrimSpace(string(pw))},
		cl: cl, ns: env["FB_OPENFAAS_NAMESPACE"], cfg: cfg}, ctx
}

// waitFunction polls the gateway until name reports want replicas and as
// many available (KWOK makes the pods Ready).
func (r real2022) waitFunction(ctx context.Context, t *testing.T, name string, want uint64) openfaas.FunctionStatus {
	t.Helper()
	var st openfaas.FunctionStatus
	var err error
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if st, err = r.gw.Function(ctx, name, r.ns); err == nil && st.Replicas == want && st.AvailableReplicas == want {
			return st
		}
	}
	t.Fatalf("%s: replicas %d, available %d (%v), want %d", name, st.Replicas, st.AvailableReplicas, err, want)
	return st
}

func TestReal2022InfoAndNamespaces(t *testing.T) {
	r, ctx := openReal2022(t)
	info, err := r.gw.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Provider == nil || info.Provider.Provider != "faas-netes" || info.Provider.Version == nil || info.Provider.Version.SHA != netesCommit2022 {
		t.Errorf("provider %+v, want faas-netes at %s", info.Provider, netesCommit2022)
	}
	if info.Version == nil || info.Version.SHA != gatewayCommit2022 {
		t.Errorf("gateway version %+v, want %s", info.Version, gatewayCommit2022)
	}
	ns, err := r.gw.Namespaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 1 || ns[0] != r.ns {
		t.Errorf("namespaces %v, want [%s] (faas-netes' one function namespace)", ns, r.ns)
	}
}

// The adapter's deployment request, through the real gateway: what faas-netes
// makes of it, scaling (0 and above 5 allowed in 2022: the CE limits came
// later), an update through PUT, and removal.
func TestReal2022DeployScaleUpdateRemove(t *testing.T) {
	r, ctx := openReal2022(t)
	fn := platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 2, MemoryMB: 128, Env: map[string]string{"X": "1"}}
	s, err := openfaas.ParseSettings(fn)
	if err != nil {
		t.Fatal(err)
	}
	d := r.cfg.Deployment(r.ns, fn, s)
	if err := r.gw.Deploy(ctx, d); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.gw.Delete(context.Background(), fn.Name, r.ns) })
	st := r.waitFunction(ctx, t, fn.Name, 2)
	if st.Labels == nil || (*st.Labels)[kube.LabelRunID] != "of2022" || (*st.Labels)["faas_function"] != fn.Name {
		t.Errorf("the function's labels as the gateway returns them: %v", st.Labels)
	}
	dep, err := r.cl.Client.AppsV1().Deployments(r.ns).Get(ctx, fn.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// faasbench finds a function's Deployment by faas_function (the stand-in labels it so, from 0.18.17).
	if dep.Labels["faas_function"] != fn.Name {
		t.Errorf("Deployment labels %v: no faas_function=%s", dep.Labels, fn.Name)
	}
	t.Logf("the 2022 faas-netes labels the Deployment %v", dep.Labels)
	tl := dep.Spec.Template.Labels
	if tl["faas_function"] != fn.Name || tl[kube.LabelRunID] != "of2022" || tl["com.openfaas.scale.min"] != "2" {
		t.Errorf("pod template labels %v", tl)
	}
	env := map[string]string{}
	for _, e := range dep.Spec.Template.Spec.Containers[0].Env {
		env[e.Name] = e.Value
	}
	if env["X"] != "1" || env["mode"] != "http" || env["upstream_url"] != "http://127.0.0.1:8082" {
		t.Errorf("container environment %v", env)
	}
	if m := dep.Spec.Template.Spec.Containers[0].Resources.Limits.Memory(); m == nil || m.String() != "128Mi" {
		t.Errorf("memory limit %v, want 128Mi", m)
	}
	for _, n := range []int{0, 7, 1} {
		if err := r.gw.Scale(ctx, fn.Name, r.ns, n); err != nil {
			t.Fatalf("scale to %d: %v", n, err)
		}
		r.waitFunction(ctx, t, fn.Name, uint64(n))
	}
	fn.Env["X"] = "2"
	if err := r.gw.Update(ctx, r.cfg.Deployment(r.ns, fn, s)); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		dep, err = r.cl.Client.AppsV1().Deployments(r.ns).Get(ctx, fn.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		x := ""
		for _, e := range dep.Spec.Template.Spec.Containers[0].Env {
			if e.Name == "X" {
				x = e.Value
			}
		}
		if x == "2" {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the update did not reach the Deployment: X=%q", x)
		}
	}
	if err := r.gw.Delete(ctx, fn.Name, r.ns); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, err := r.gw.Function(ctx, fn.Name, r.ns)
		if httpapi.IsStatus(err, 404) {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the function is still there after its removal: %v", err)
		}
	}
}

// A wrong password is the gateway's 401, said as the adapter says it; a
// request faas-netes refuses comes back in its own words.
func TestReal2022RefusalsInTheirOwnWords(t *testing.T) {
	r, ctx := openReal2022(t)
	bad := *r.gw
	bad.Password = "not-the-password"
	if _, err := bad.Namespaces(ctx); err == nil || !httpapi.IsStatus(err, 401) || !strings.Contains(err.Error(), "unauthorized") {
		t.Errorf("a wrong password: %v", err)
	}
	d := openfaas.FunctionDeployment{Service: "Not_A_DNS_Name", Image: "ko.local/x:1", Namespace: r.ns}
	err := r.gw.Deploy(ctx, d)
	if err == nil || !httpapi.IsStatus(err, 400) || !strings.Contains(err.Error(), "Not_A_DNS_Name") {
		t.Errorf("an invalid name: %v", err)
	}
}

// The 2022 gateway's AlertManager webhook sets a function to its labels' range whatever it was scaled
// to: a resolved alert to com.openfaas.scale.min (so a function scaled to 3 through
// /system/scale-function with min 1 goes back to 1), a firing one to at most com.openfaas.scale.max. A
// function updated with min = max = 3 (what the adapter's Scale does for fixed replicas) stays at 3.
func TestReal2022AlertsSetTheLabelsRange(t *testing.T) {
	r, ctx := openReal2022(t)
	fn := platform.Function{Name: "hello-alerts", Workload: "hello", Language: "go", Replicas: 1}
	s, err := openfaas.ParseSettings(fn)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.gw.Deploy(ctx, r.cfg.Deployment(r.ns, fn, s)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.gw.Delete(context.Background(), fn.Name, r.ns) })
	r.waitFunction(ctx, t, fn.Name, 1)
	alert := func(status string) {
		t.Helper()
		body := `{"status":"` + status + `","receiver":"scale-up","alerts":[{"status":"` + status + `","labels":{"alertname":"APIHighInvocationRate","function_name":"` + fn.Name + `.` + r.ns + `"}}]}`
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.gw.URL+"/system/alert", strings.NewReader(body))
		req.SetBasicAuth(r.gw.User, r.gw.Password)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("alert %s: HTTP %d %q", status, resp.StatusCode, b)
		}
	}
	if err := r.gw.Scale(ctx, fn.Name, r.ns, 3); err != nil {
		t.Fatal(err)
	}
	r.waitFunction(ctx, t, fn.Name, 3)
	alert("resolved")
	r.waitFunction(ctx, t, fn.Name, 1) // the scale to 3 undone: min is 1
	fixed := fn
	fixed.Replicas = 3
	if s, err = openfaas.ParseSettings(fixed); err != nil {
		t.Fatal(err)
	}
	if err := r.gw.Update(ctx, r.cfg.Deployment(r.ns, fixed, s)); err != nil {
		t.Fatal(err)
	}
	r.waitFunction(ctx, t, fn.Name, 3)
	for _, status := range []string{"resolved", "firing", "resolved"} {
		alert(status)
		time.Sleep(300 * time.Millisecond)
		r.waitFunction(ctx, t, fn.Name, 3)
	}
}
