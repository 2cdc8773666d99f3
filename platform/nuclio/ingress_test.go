package nuclio

import (
	"context"
	"strings"
	"testing"

	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

func TestIngressURLIsParsedAndNeedsTheDashboard(t *testing.T) {
	dash := "http://nuclio-dashboard.nuclio.svc.cluster.local:8070"
	c, err := ParseConfig("r1", map[string]any{"dashboard_url": dash, "ingress_url": "http://traefik.traefik.svc.cluster.local/"})
	if err != nil || c.IngressURL != "http://traefik.traefik.svc.cluster.local" {
		t.Fatalf("%q %v", c.IngressURL, err)
	}
	for _, bad := range []struct {
		opts map[string]any
		want string
	}{
		{map[string]any{"ingress_url": "http://traefik"}, "platform.options.ingress_url needs platform.options.dashboard_url"},
		{map[string]any{"dashboard_url": dash, "ingress_url": "traefik:80"}, `platform.options.ingress_url: "traefik:80" is not an http(s) URL`},
	} {
		if _, err := ParseConfig("r1", bad.opts); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%v: %v, want %q", bad.opts, err, bad.want)
		}
	}
}

// TestAFunctionAsksForAnIngressAsTheDashboardUIDoes: with an ingress, the HTTP trigger
// carries the ingress Nuclio's dashboard renders from the platform's host template
// (pkg/platform/kube/platform.go enrichHTTPTriggerIngresses reads hostTemplate and paths);
// without one, no ingress at all.
func TestAFunctionAsksForAnIngressAsTheDashboardUIDoes(t *testing.T) {
	fn := platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 1}
	s, err := ParseSettings(fn)
	if err != nil {
		t.Fatal(err)
	}
	attrs := func(c Config) map[string]any {
		u, err := c.Function("nuclio", fn, s)
		if err != nil {
			t.Fatal(err)
		}
		a, _, _ := unstructured.NestedMap(u.Object, "spec", "triggers", "http", "attributes")
		return a
	}
	if a := attrs(Config{}); a["ingresses"] != nil {
		t.Errorf("no ingress_url, yet ingresses %v", a["ingresses"])
	}
	a := attrs(Config{IngressURL: "http://traefik", DashboardURL: "http://dash"})
	ing, ok := a["ingresses"].(map[string]any)["faasbench"].(map[string]any)
	if !ok || ing["hostTemplate"] != "@nuclio.fromDefault" || len(ing["paths"].([]any)) != 1 || ing["paths"].([]any)[0] != "/" {
		t.Fatalf("ingresses %v", a["ingresses"])
	}
	if a["serviceType"] != "NodePort" {
		t.Errorf("the NodePort (the study's direct call) must stay: %v", a)
	}
}

func TestEndpointAndHostGoThroughTheIngress(t *testing.T) {
	ctx := context.Background()
	withHost := &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "nuclio-hello-go", Namespace: "nuclio"},
		Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{Host: "hello-go.nuclio.nuclio.local"}}}}
	noHost := &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "nuclio-bare", Namespace: "nuclio"},
		Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{}}}}
	cl := &kube.Cluster{Client: fake.NewSimpleClientset(withHost, noHost), Namespace: "nuclio"}
	p := &Platform{Session: &kube.Session{Cluster: cl}, cfg: Config{IngressURL: "http://traefik.traefik.svc.cluster.local"}}
	if h, err := p.FunctionHost(ctx, "hello-go"); err != nil || h != "hello-go.nuclio.nuclio.local" {
		t.Errorf("host %q %v", h, err)
	}
	if _, err := p.FunctionHost(ctx, "bare"); err == nil || !strings.Contains(err.Error(), "ingress nuclio-bare has no host") {
		t.Errorf("an ingress without a host: %v", err)
	}
	if _, err := p.FunctionHost(ctx, "gone"); err == nil || !strings.Contains(err.Error(), "nuclio function gone: its ingress") {
		t.Errorf("no ingress: %v", err)
	}
	// The fingerprint says the run went through the ingress, and which.
	if f, err := p.Fingerprint(ctx); err != nil || f["ingress"].(map[string]any)["url"] != "http://traefik.traefik.svc.cluster.local" {
		t.Errorf("fingerprint %v %v", f["ingress"], err)
	}
	// Without ingress_url, no host: the NodePort is called as it is.
	p.cfg.IngressURL = ""
	if h, err := p.FunctionHost(ctx, "hello-go"); err != nil || h != "" {
		t.Errorf("no ingress_url: host %q %v", h, err)
	}
}
