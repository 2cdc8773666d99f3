package kingress

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"knative.dev/networking/pkg/apis/networking/v1alpha1"
	"knative.dev/networking/pkg/ingress"
)

// fakeBackends holds Services and EndpointSlices by namespace/name.
type fakeBackends struct {
	services map[string]*corev1.Service
	slices   map[string][]*discoveryv1.EndpointSlice
}

func (f fakeBackends) Service(ns, name string) (*corev1.Service, error) {
	s, ok := f.services[ns+"/"+name]
	if !ok {
		return nil, fmt.Errorf("%w: no service %s/%s", ErrBackendMissing, ns, name)
	}
	return s, nil
}

func (f fakeBackends) EndpointSlices(ns, name string) ([]*discoveryv1.EndpointSlice, error) {
	return f.slices[ns+"/"+name], nil
}

func revisionService(name string, targetPort int32) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
			{Name: "http", Port: 80, TargetPort: intstr.FromInt32(targetPort)},
			{Name: "https", Port: 443, TargetPort: intstr.FromInt32(8112)},
		}},
	}
}

func slice(svc string, ready map[string]bool) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "default", Name: svc + "-x", Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
	}
	for ip, ok := range ready {
		ok := ok
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ok}})
	}
	return s
}

// helloIngress is what Serving writes for a Service "hello" in "default" with two revisions
// splitting 70/30: a cluster-local rule and an external one.
func helloIngress() *v1alpha1.Ingress {
	split := func(rev string, pct int) v1alpha1.IngressBackendSplit {
		return v1alpha1.IngressBackendSplit{
			IngressBackend: v1alpha1.IngressBackend{ServiceNamespace: "default", ServiceName: rev, ServicePort: intstr.FromInt32(80)},
			Percent:        pct,
			AppendHeaders:  map[string]string{"Knative-Serving-Namespace": "default", "Knative-Serving-Revision": rev},
		}
	}
	path := v1alpha1.HTTPIngressPath{Splits: []v1alpha1.IngressBackendSplit{split("hello-00001", 70), split("hello-00002", 30)}}
	return &v1alpha1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "hello",
			Annotations: map[string]string{"networking.knative.dev/ingress.class": Class}},
		Spec: v1alpha1.IngressSpec{Rules: []v1alpha1.IngressRule{
			{Hosts: []string{"hello.default", "hello.default.svc", "hello.default.svc.cluster.local"},
				Visibility: v1alpha1.IngressVisibilityClusterLocal, HTTP: &v1alpha1.HTTPIngressRuleValue{Paths: []v1alpha1.HTTPIngressPath{path}}},
			{Hosts: []string{"hello.default.example.com"},
				Visibility: v1alpha1.IngressVisibilityExternalIP, HTTP: &v1alpha1.HTTPIngressRuleValue{Paths: []v1alpha1.HTTPIngressPath{path}}},
		}},
	}
}

func helloBackends() fakeBackends {
	return fakeBackends{
		services: map[string]*corev1.Service{
			"default/hello-00001": revisionService("hello-00001", 8012),
			"default/hello-00002": revisionService("hello-00002", 8012),
		},
		slices: map[string][]*discoveryv1.EndpointSlice{
			"default/hello-00001": {slice("hello-00001", map[string]bool{"10.250.0.7": true, "10.250.0.8": false})},
			"default/hello-00002": {slice("hello-00002", map[string]bool{"10.250.0.9": true})},
		},
	}
}

func TestTranslateFollowsTheIngress(t *testing.T) {
	ing := helloIngress()
	hash, err := ingress.InsertProbe(ing)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Translate(ing, helloBackends())
	if err != nil {
		t.Fatal(err)
	}
	// Clusters: the ready endpoints only, at the Service's target port, per request balancing.
	if len(tr.Clusters) != 2 {
		t.Fatalf("clusters %d, want 2", len(tr.Clusters))
	}
	c := tr.Clusters[0]
	if c.Name != "default/hello-00001" || c.GetType() != clusterv3.Cluster_STATIC {
		t.Errorf("cluster %s type %v", c.Name, c.GetType())
	}
	eps := c.GetLoadAssignment().GetEndpoints()[0].GetLbEndpoints()
	if len(eps) != 1 || eps[0].GetEndpoint().GetAddress().GetSocketAddress().GetAddress() != "10.250.0.7" ||
		eps[0].GetEndpoint().GetAddress().GetSocketAddress().GetPortValue() != 8012 {
		t.Errorf("endpoints %v: want only the ready 10.250.0.7:8012", eps)
	}
	// Hosts: the external listener has only the external host, the local one every host.
	if len(tr.External) != 1 || tr.External[0].Domains[0] != "hello.default.example.com" || tr.External[0].Domains[1] != "hello.default.example.com:*" {
		t.Errorf("external hosts %v", tr.External)
	}
	if len(tr.Local) != 4 || len(tr.Hosts) != 4 {
		t.Errorf("local hosts %d, claimed %v: want 4", len(tr.Local), tr.Hosts)
	}
	for _, vh := range tr.Local {
		// The probe route (header K-Network-Hash: override) comes first and sets the hash.
		if len(vh.Routes) != 2 {
			t.Fatalf("%s: %d routes, want the probe route and the route", vh.Name, len(vh.Routes))
		}
		probe, plain := vh.Routes[0], vh.Routes[1]
		m := probe.GetMatch().GetHeaders()
		if len(m) != 1 || m[0].Name != "K-Network-Hash" || m[0].GetStringMatch().GetExact() != "override" {
			t.Errorf("%s: first route matches %v, want K-Network-Hash: override", vh.Name, m)
		}
		if h := probe.GetRequestHeadersToAdd(); len(h) != 1 || h[0].Header.Value != hash {
			t.Errorf("%s: probe route sets %v, want the hash %s", vh.Name, h, hash)
		}
		if len(plain.GetMatch().GetHeaders()) != 0 || plain.GetMatch().GetPrefix() != "/" {
			t.Errorf("%s: second route %v", vh.Name, plain.GetMatch())
		}
		a := plain.GetRoute()
		if a.GetTimeout().AsDuration() != 0 || a.GetRetryPolicy() != nil {
			t.Errorf("%s: timeout %v retry %v: want none (the activator and queue-proxy time out)", vh.Name, a.GetTimeout(), a.GetRetryPolicy())
		}
		w := a.GetWeightedClusters().GetClusters()
		if len(w) != 2 || w[0].Weight.GetValue() != 70 || w[1].Weight.GetValue() != 30 {
			t.Fatalf("%s: weights %v, want 70/30", vh.Name, w)
		}
		set := map[string]string{}
		for _, h := range w[1].RequestHeadersToAdd {
			set[h.Header.Key] = h.Header.Value
			if h.AppendAction.String() != "OVERWRITE_IF_EXISTS_OR_ADD" {
				t.Errorf("header %s is %v, want set (Serving sets headers)", h.Header.Key, h.AppendAction)
			}
		}
		if set["Knative-Serving-Revision"] != "hello-00002" || set["Knative-Serving-Namespace"] != "default" {
			t.Errorf("%s: split headers %v", vh.Name, set)
		}
	}
}

func TestTranslateWaitsForBackends(t *testing.T) {
	b := helloBackends()
	delete(b.services, "default/hello-00002")
	if _, err := Translate(helloIngress(), b); !errors.Is(err, ErrBackendMissing) {
		t.Errorf("no service: %v, want ErrBackendMissing", err)
	}
	b = helloBackends()
	b.slices["default/hello-00002"] = nil
	if _, err := Translate(helloIngress(), b); !errors.Is(err, ErrBackendMissing) {
		t.Errorf("no endpoint slices: %v, want ErrBackendMissing", err)
	}
	b = helloBackends()
	b.slices["default/hello-00002"] = []*discoveryv1.EndpointSlice{slice("hello-00002", map[string]bool{"10.250.0.9": false})}
	if _, err := Translate(helloIngress(), b); !errors.Is(err, ErrBackendMissing) {
		t.Errorf("no ready endpoint: %v, want ErrBackendMissing", err)
	}
	bad := helloIngress()
	bad.Spec.Rules[0].HTTP = nil
	if _, err := Translate(bad, helloBackends()); err == nil || !strings.Contains(err.Error(), "spec.rules[0]") {
		t.Errorf("a rule without http: %v", err)
	}
}

func TestTranslateExternalNameAndHTTP2(t *testing.T) {
	b := helloBackends()
	b.services["default/hello-00001"] = &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "hello-00001"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "faasbench-ingress-internal.knative-serving.svc.cluster.local"},
	}
	s := revisionService("hello-00002", 8013)
	s.Spec.Ports[0].Name = "http2"
	b.services["default/hello-00002"] = s
	tr, err := Translate(helloIngress(), b)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Clusters[0].GetType() != clusterv3.Cluster_LOGICAL_DNS {
		t.Errorf("external name cluster %v, want LOGICAL_DNS", tr.Clusters[0].GetType())
	}
	if tr.Clusters[1].TypedExtensionProtocolOptions == nil {
		t.Error("a port named http2 should make the cluster speak HTTP/2 upstream")
	}
	ing := helloIngress()
	ing.Annotations["networking.knative.dev/disable-http2"] = "true"
	if tr, err = Translate(ing, b); err != nil || tr.Clusters[1].TypedExtensionProtocolOptions != nil {
		t.Errorf("disable-http2: %v %v", err, tr.Clusters[1].TypedExtensionProtocolOptions)
	}
}

func TestSnapshotIsConsistent(t *testing.T) {
	ing := helloIngress()
	if _, err := ingress.InsertProbe(ing); err != nil {
		t.Fatal(err)
	}
	tr, err := Translate(ing, helloBackends())
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Snapshot("7", []*Translated{tr})
	if err != nil {
		t.Fatal(err)
	}
	if v := snap.GetVersion(resource.ListenerType); v != "7" {
		t.Errorf("version %q", v)
	}
	if n := len(snap.GetResources(resource.ListenerType)); n != 3 {
		t.Errorf("%d listeners, want external, local and status", n)
	}
	routes := snap.GetResources(resource.RouteType)
	if ext, ok := routes[ExternalRouteConfig].(*routev3.RouteConfiguration); !ok || len(ext.VirtualHosts) != 1 {
		t.Errorf("external routes %v", routes[ExternalRouteConfig])
	}
	if n := len(snap.GetResources(resource.ClusterType)); n != 2 {
		t.Errorf("%d clusters, want 2", n)
	}
	// No Ingress at all is still a configuration Envoy takes (listeners, empty routes).
	if _, err := Snapshot("1", nil); err != nil {
		t.Errorf("empty snapshot: %v", err)
	}
}
