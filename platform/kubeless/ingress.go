package kubeless

import (
	"context"
	"fmt"
	"maps"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/faasbench/faasbench/platform/kube"
)

// IngressGVR is the kind of the Ingress a function gets with platform.options.ingress_url.
var IngressGVR = schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}

// IngressClass is the gateway of the HTTP trigger (`kubeless trigger http create --gateway traefik`):
// seed 003 ran Kubeless behind Traefik (l. 114: "opted for Traefik due to better performance").
const IngressClass = "traefik"

// IngressHost is the host a function's HTTP trigger is given: with --gateway traefik the Kubeless CLI
// requires --hostname (cmd/kubeless/trigger/http/create.go; only nginx gets a default); faasbench
// names it after the function and its namespace, as Nuclio's default host template does.
func IngressHost(ns, function string) string { return function + "." + ns + ".kubeless.local" }

// Ingress is the Ingress Kubeless's HTTP trigger controller makes (kubeless/http-trigger
// pkg/utils/k8sutil.go CreateIngress) for `kubeless trigger http create NAME --function-name NAME
// --gateway traefik --hostname IngressHost` with no --path: named as the trigger (here the function),
// one rule for the host, the path "/" to the function's Service at its first port's targetPort (as the
// controller writes it), the annotation kubernetes.io/ingress.class: traefik, the trigger's labels (the
// run's labels here, so that a run's cleanup finds it). The controller wrote extensions/v1beta1, which
// Kubernetes 1.22 removed: this is the same object as networking.k8s.io/v1, its pathType
// ImplementationSpecific (what v1beta1 defaulted to; Traefik matches it as a prefix). Its owner is the
// Function (the controller's is the HTTPTrigger, which faasbench does not make: Kubeless's HTTP trigger
// controller is not in the pinned source): deleting the function removes it.
func Ingress(ns string, fn metav1.Object, svc *corev1.Service, labels map[string]string) (*netv1.Ingress, error) {
	if len(svc.Spec.Ports) == 0 {
		return nil, fmt.Errorf("kubeless function %s: its Service %s has no port for the ingress", fn.GetName(), svc.Name)
	}
	port := netv1.ServiceBackendPort{Number: svc.Spec.Ports[0].TargetPort.IntVal}
	if tp := svc.Spec.Ports[0].TargetPort; tp.StrVal != "" {
		port = netv1.ServiceBackendPort{Name: tp.StrVal}
	}
	pathType := netv1.PathTypeImplementationSpecific
	return &netv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{
			Name: fn.GetName(), Namespace: ns, Labels: maps.Clone(labels),
			Annotations: map[string]string{"kubernetes.io/ingress.class": IngressClass},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "kubeless.io/v1beta1", Kind: "Function",
				Name: fn.GetName(), UID: fn.GetUID()}},
		},
		Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{
			Host: IngressHost(ns, fn.GetName()),
			IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{{
				Path: "/", PathType: &pathType,
				Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: svc.Name, Port: port}},
			}}}},
		}}},
	}, nil
}

// putIngress makes the function's Ingress to svc, the Service Kubeless's controller made for it (the
// trigger controller reads it: waitService), or brings an existing one to it (the controller updates on
// conflict).
func (p *Platform) putIngress(ctx context.Context, name string, svc *corev1.Service) error {
	fn, err := p.functions().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("kubeless function %s: %w", name, err)
	}
	ing, err := Ingress(p.Namespace(), fn, svc, fn.GetLabels())
	if err != nil {
		return err
	}
	api := p.Cluster.Client.NetworkingV1().Ingresses(p.Namespace())
	if _, err = api.Create(ctx, ing, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
		var old *netv1.Ingress
		if old, err = api.Get(ctx, name, metav1.GetOptions{}); err == nil {
			old.Labels, old.Annotations, old.OwnerReferences, old.Spec = ing.Labels, ing.Annotations, ing.OwnerReferences, ing.Spec
			_, err = api.Update(ctx, old, metav1.UpdateOptions{})
		}
	}
	if err != nil {
		return fmt.Errorf("kubeless function %s: its ingress (platform.options.ingress_url): %w", name, err)
	}
	return nil
}

// FunctionHost implements platform.HostRouter: with platform.options.ingress_url, the host of the
// function's Ingress (Traefik routes by it); "" otherwise.
func (p *Platform) FunctionHost(_ context.Context, name string) (string, error) {
	if p.cfg.IngressURL == "" {
		return "", nil
	}
	return IngressHost(p.Namespace(), name), nil
}

// hostOf sets the function's ingress host on a request sent through platform.options.ingress_url.
func (p *Platform) hostOf(name string) func(*http.Request) {
	host := IngressHost(p.Namespace(), name)
	return func(r *http.Request) { r.Host = host }
}

// DirectEndpoints implements platform.DirectCaller: every ready pod of the function at the runtime's
// port, past its Service and the ingress (seed 003's LC mode: the client calls the pod's address).
func (p *Platform) DirectEndpoints(ctx context.Context, name string) ([]string, error) {
	return p.PodEndpoints(ctx, name, kube.Port)
}
