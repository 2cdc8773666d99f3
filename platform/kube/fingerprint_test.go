package kube

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// The ingress in front of the functions is in a run's fingerprint: its URL, its class and the image of
// the controller (its version), read from the ingress namespace's Deployments.
func TestIngressFactsNameTheControllersImage(t *testing.T) {
	one := int32(1)
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "traefik", Namespace: IngressNamespace},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "traefik", Image: "ko.local/traefik:v3.6.12"}}}}}}
	other := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "gw", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "gw", Image: "gw:1"}}}}}}
	c := &Cluster{Client: fake.NewSimpleClientset(dep, other)}
	f := c.IngressFacts(context.Background(), "http://traefik.traefik.svc.cluster.local", "traefik")
	comps, _ := f["components"].([]Component)
	if f["url"] != "http://traefik.traefik.svc.cluster.local" || f["class"] != "traefik" || len(comps) != 1 ||
		comps[0].Image != "ko.local/traefik:v3.6.12" || comps[0].Replicas != 1 {
		t.Errorf("ingress facts %+v", f)
	}
}
