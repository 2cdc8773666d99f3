package kubeless

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/faasbench/faasbench/platform/kube"
)

func TestIngressURLIsParsed(t *testing.T) {
	c, err := ParseConfig("r1", map[string]any{"ingress_url": "http://traefik.traefik.svc.cluster.local/"})
	if err != nil || c.IngressURL != "http://traefik.traefik.svc.cluster.local" {
		t.Fatalf("%q %v", c.IngressURL, err)
	}
	if _, err := ParseConfig("r1", map[string]any{"ingress_url": "traefik:80"}); err == nil ||
		err.Error() != `platform.options.ingress_url: "traefik:80" is not an http(s) URL` {
		t.Errorf("a bad URL: %v", err)
	}
}

func kubelessService(name string, target intstr.IntOrString) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "fb"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Name: "http-function-port", Port: 8080, TargetPort: target}}}}
}

func kubelessFunction(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kubeless.io/v1beta1", "kind": "Function",
		"metadata": map[string]any{"name": name, "namespace": "fb", "uid": "uid-" + name,
			"labels": map[string]any{"function": name, "faasbench.dev/run-id": "r1"}}}}
	return u
}

// The Ingress is the one kubeless/http-trigger's CreateIngress writes for --gateway traefik with a
// hostname and no path: the class annotation Traefik selects by, the host, "/" to the Service at its
// first port's targetPort; owned by the Function, labelled as it (a run's cleanup selects by them).
func TestIngressIsWhatKubelesssHTTPTriggerMakes(t *testing.T) {
	ing, err := Ingress("fb", kubelessFunction("hello-python"), kubelessService("hello-python", intstr.FromInt32(8080)), map[string]string{"faasbench.dev/run-id": "r1"})
	if err != nil {
		t.Fatal(err)
	}
	if ing.Name != "hello-python" || ing.Annotations["kubernetes.io/ingress.class"] != "traefik" || ing.Labels["faasbench.dev/run-id"] != "r1" {
		t.Errorf("metadata %+v", ing.ObjectMeta)
	}
	if o := ing.OwnerReferences; len(o) != 1 || o[0].Kind != "Function" || o[0].Name != "hello-python" || o[0].UID != types.UID("uid-hello-python") {
		t.Errorf("owner %+v", o)
	}
	r := ing.Spec.Rules
	if len(r) != 1 || r[0].Host != "hello-python.fb.kubeless.local" || len(r[0].HTTP.Paths) != 1 {
		t.Fatalf("rules %+v", r)
	}
	path := r[0].HTTP.Paths[0]
	if path.Path != "/" || *path.PathType != netv1.PathTypeImplementationSpecific || path.Backend.Service.Name != "hello-python" || path.Backend.Service.Port.Number != 8080 {
		t.Errorf("path %+v, backend %+v", path, path.Backend.Service)
	}
	ing, err = Ingress("fb", kubelessFunction("f"), kubelessService("f", intstr.FromString("http")), nil)
	if err != nil || ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Port.Name != "http" {
		t.Errorf("a named targetPort: %+v %v", ing, err)
	}
	bare := kubelessService("f", intstr.FromInt32(8080))
	bare.Spec.Ports = nil
	if _, err := Ingress("fb", kubelessFunction("f"), bare, nil); err == nil || !strings.Contains(err.Error(), "Service f has no port") {
		t.Errorf("a Service without ports: %v", err)
	}
}

// With ingress_url the function is called through it with its host, its Ingress is made once its
// Service is there and brought back to what it should be when it exists; without, nothing changes.
func TestFunctionsGoThroughTheIngress(t *testing.T) {
	ctx := context.Background()
	stale := &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "g", Namespace: "fb"},
		Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{Host: "old.example"}}}}
	cs := fake.NewSimpleClientset(kubelessService("f", intstr.FromInt32(8080)), kubelessService("g", intstr.FromInt32(8080)), stale)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(k8sruntime.NewScheme(),
		map[schema.GroupVersionResource]string{FunctionGVR: "FunctionList"}, kubelessFunction("f"), kubelessFunction("g"), kubelessFunction("nosvc"))
	cl := &kube.Cluster{Client: cs, Dynamic: dyn, Namespace: "fb"}
	p := &Platform{Session: &kube.Session{Cluster: cl, Common: kube.Common{ReadyTimeout: 500 * time.Millisecond}},
		cfg: Config{IngressURL: "http://traefik.traefik.svc.cluster.local"}}
	if u, err := p.Endpoint(ctx, "f"); err != nil || u != "http://traefik.traefik.svc.cluster.local/" {
		t.Errorf("endpoint %q %v", u, err)
	}
	if h, err := p.FunctionHost(ctx, "f"); err != nil || h != "f.fb.kubeless.local" {
		t.Errorf("host %q %v", h, err)
	}
	for _, name := range []string{"f", "g"} {
		svc, err := p.waitService(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.putIngress(ctx, name, svc); err != nil {
			t.Fatal(err)
		}
		ing, err := cs.NetworkingV1().Ingresses("fb").Get(ctx, name, metav1.GetOptions{})
		if err != nil || ing.Spec.Rules[0].Host != name+".fb.kubeless.local" || ing.Annotations["kubernetes.io/ingress.class"] != "traefik" {
			t.Errorf("%s: ingress %+v %v", name, ing, err)
		}
	}
	if _, err := p.waitService(ctx, "nosvc"); !errors.Is(err, kube.ErrTimeout) || !strings.Contains(err.Error(), "no Service from Kubeless's controller within 500ms") {
		t.Errorf("no Service yet: %v", err)
	}
	// The fingerprint says the run went through the ingress, and which.
	if f, err := p.Fingerprint(ctx); err != nil || f["ingress"].(map[string]any)["url"] != "http://traefik.traefik.svc.cluster.local" ||
		f["ingress"].(map[string]any)["class"] != "traefik" {
		t.Errorf("fingerprint %v %v", f["ingress"], err)
	}
	p.cfg.IngressURL = ""
	if h, err := p.FunctionHost(ctx, "f"); err != nil || h != "" {
		t.Errorf("no ingress_url: host %q %v", h, err)
	}
	if f, _ := p.Fingerprint(ctx); f["ingress"] != nil {
		t.Errorf("no ingress_url, yet the fingerprint names one: %v", f["ingress"])
	}
}
