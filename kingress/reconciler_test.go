package kingress

import (
	"context"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	"github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"knative.dev/networking/pkg/apis/networking/v1alpha1"
	"knative.dev/networking/pkg/ingress"
)

type lastSnapshot struct{ snap *cache.Snapshot }

func (l *lastSnapshot) Set(_ context.Context, s *cache.Snapshot) error { l.snap = s; return nil }

// fakeProber answers IsReady with ready and records what it was asked.
type fakeProber struct {
	ready     bool
	asked     []*v1alpha1.Ingress
	cancelled []types.NamespacedName
}

func (f *fakeProber) IsReady(_ context.Context, ing *v1alpha1.Ingress) (bool, error) {
	f.asked = append(f.asked, ing)
	return f.ready, nil
}

func (f *fakeProber) CancelIngressProbingByKey(k types.NamespacedName) {
	f.cancelled = append(f.cancelled, k)
}

func newTestReconciler() (*Reconciler, *lastSnapshot, *fakeProber) {
	x, p := &lastSnapshot{}, &fakeProber{}
	return &Reconciler{Backends: helloBackends(), XDS: x, Prober: p,
		ExternalDomain: "faasbench-ingress.knative-serving.svc.cluster.local",
		InternalDomain: "faasbench-ingress-internal.knative-serving.svc.cluster.local"}, x, p
}

func localHosts(s *cache.Snapshot) int {
	rc, _ := s.GetResources(resource.RouteType)[LocalRouteConfig].(*routev3.RouteConfiguration)
	return len(rc.GetVirtualHosts())
}

func TestReconcileMarksReadyOnlyWhenProbed(t *testing.T) {
	r, x, p := newTestReconciler()
	ing := helloIngress()
	want, err := ingress.ComputeHash(ing)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.ReconcileKind(context.Background(), ing); err != nil {
		t.Fatal(err)
	}
	if x.snap == nil || localHosts(x.snap) != 4 {
		t.Fatalf("envoy was not given the ingress: %v", x.snap)
	}
	// The prober is asked with the Ingress as Serving wrote it (its hash is the one the probe
	// routes set), and until it says ready the load balancer is not ready.
	if len(p.asked) != 1 || len(p.asked[0].Spec.Rules[0].HTTP.Paths) != 1 {
		t.Fatalf("prober asked %v: want the Ingress without probe paths", p.asked)
	}
	if got, _ := ingress.ComputeHash(p.asked[0]); got != want {
		t.Error("the prober was given an Ingress whose hash differs from Serving's")
	}
	if ing.IsReady() || ing.Status.GetCondition(v1alpha1.IngressConditionNetworkConfigured).IsTrue() != true {
		t.Errorf("status %+v: want network configured, not ready", ing.Status)
	}
	p.ready = true
	if err := r.ReconcileKind(context.Background(), ing); err != nil {
		t.Fatal(err)
	}
	if !ing.IsReady() || ing.Status.PrivateLoadBalancer.Ingress[0].DomainInternal != r.InternalDomain ||
		ing.Status.PublicLoadBalancer.Ingress[0].DomainInternal != r.ExternalDomain {
		t.Errorf("status %+v: want ready with the gateway services as load balancers", ing.Status)
	}
	// Ready with the expected load balancers: not probed again.
	asked := len(p.asked)
	if err := r.ReconcileKind(context.Background(), ing); err != nil || len(p.asked) != asked {
		t.Errorf("a ready ingress was probed again (%v)", err)
	}
	if err := r.ObserveDeletion(context.Background(), types.NamespacedName{Namespace: "default", Name: "hello"}); err != nil {
		t.Fatal(err)
	}
	if localHosts(x.snap) != 0 || len(p.cancelled) != 1 {
		t.Errorf("after deletion: %d hosts, %d probings cancelled", localHosts(x.snap), len(p.cancelled))
	}
}

func TestReconcileRefusesAHostServedElsewhere(t *testing.T) {
	r, x, _ := newTestReconciler()
	if err := r.ReconcileKind(context.Background(), helloIngress()); err != nil {
		t.Fatal(err)
	}
	other := helloIngress()
	other.Name = "thief"
	if err := r.ReconcileKind(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	c := other.Status.GetCondition(v1alpha1.IngressConditionLoadBalancerReady)
	if c == nil || c.Reason != "DomainConflict" || !c.IsFalse() {
		t.Errorf("condition %+v: want DomainConflict", c)
	}
	if localHosts(x.snap) != 4 {
		t.Errorf("the conflicting ingress changed envoy's configuration: %d hosts", localHosts(x.snap))
	}
}

func TestReconcileKeepsConfigurationUntilBackendsExist(t *testing.T) {
	r, x, p := newTestReconciler()
	b := helloBackends()
	b.slices["default/hello-00002"] = nil
	r.Backends = b
	ing := helloIngress()
	if err := r.ReconcileKind(context.Background(), ing); err != nil {
		t.Fatal(err)
	}
	// Nothing pushed yet (no endpoints), the prober still decides readiness (it will see 404/503).
	if x.snap != nil || len(p.asked) != 1 || ing.IsReady() {
		t.Errorf("snapshot %v, probes %d, ready %v", x.snap, len(p.asked), ing.IsReady())
	}
}

func TestTargetListerUsesGatewayPodsAndVisibilityPorts(t *testing.T) {
	l := TargetLister{Slices: func() ([]*discoveryv1.EndpointSlice, error) {
		return []*discoveryv1.EndpointSlice{slice(InternalService, map[string]bool{"10.250.0.20": true, "10.250.0.21": false})}, nil
	}}
	targets, err := l.ListProbeTargets(context.Background(), helloIngress())
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) != 2 || targets[0].PodPort != "8081" || targets[1].PodPort != "8080" {
		t.Fatalf("targets %+v: want the local port for the cluster-local rule, the external one for the other", targets)
	}
	if !targets[0].PodIPs.Has("10.250.0.20") || targets[0].PodIPs.Has("10.250.0.21") || len(targets[0].URLs) != 3 ||
		targets[1].URLs[0].String() != "http://hello.default.example.com/" {
		t.Errorf("targets %+v", targets)
	}
	none := TargetLister{Slices: func() ([]*discoveryv1.EndpointSlice, error) { return nil, nil }}
	if _, err := none.ListProbeTargets(context.Background(), helloIngress()); err == nil {
		t.Error("no gateway pod should be an error")
	}
}
