//go:build kube

package kubeless_test

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"

	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
	"github.com/faasbench/faasbench/platform/kubeless"
)

// kubelessStandIn is a small stand-in for Kubeless's function controller
// (which cannot run here): for every Function it makes what
// pkg/utils/kubelessutil.go (EnsureFuncDeployment, EnsureFuncService) makes
// from a Function with a custom image: a Deployment named after the
// function from spec.deployment, its labels merged with the function's and
// created-by=kubeless, selector {created-by, function}, FUNC_PORT added,
// the given probe kept; and a Service of the same name from spec.service.
// The Service comes first, as in the controller's ensureK8sResources
// (function_controller.go: config map, Service, then Deployment): the
// stand-in once made them the other way round, and a Deploy that returned
// as soon as the pods were ready then found no Service (a CI failure the
// real order cannot give). Updates copy the template's replicas. The real
// controllers and KWOK make the pods.
func kubelessStandIn(ctx context.Context, t *testing.T, cl *kube.Cluster) {
	kubetest.EveryObject(ctx, t, "kubeless stand-in", cl, kubeless.FunctionGVR, func(ctx context.Context, o *unstructured.Unstructured) error {
		return reconcile(ctx, cl, o)
	})
}

func reconcile(ctx context.Context, cl *kube.Cluster, fn *unstructured.Unstructured) error {
	if fn.GetDeletionTimestamp() != nil {
		return nil
	}
	raw, _, _ := unstructured.NestedMap(fn.Object, "spec", "deployment")
	var d appsv1.Deployment
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &d); err != nil {
		return err
	}
	labels := map[string]string{}
	for k, v := range d.Labels {
		labels[k] = v
	}
	for k, v := range fn.GetLabels() {
		labels[k] = v
	}
	labels[kubeless.LabelCreatedBy] = "kubeless"
	ctrl := true
	owner := []metav1.OwnerReference{{APIVersion: "kubeless.io/v1beta1", Kind: "Function", Name: fn.GetName(), UID: fn.GetUID(), Controller: &ctrl}}
	d.ObjectMeta = metav1.ObjectMeta{Name: fn.GetName(), Labels: labels, OwnerReferences: owner}
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{kubeless.LabelCreatedBy: "kubeless", kubeless.LabelFunction: fn.GetLabels()[kubeless.LabelFunction]}}
	for k, v := range fn.GetLabels() {
		if d.Spec.Template.Labels == nil {
			d.Spec.Template.Labels = map[string]string{}
		}
		d.Spec.Template.Labels[k] = v
	}
	c := &d.Spec.Template.Spec.Containers[0]
	c.Name = fn.GetName()
	c.Env = append(c.Env, corev1.EnvVar{Name: "FUNC_PORT", Value: "8080"})
	c.Ports = append(c.Ports, corev1.ContainerPort{ContainerPort: 8080})
	if err := ensureService(ctx, cl, fn, labels, owner); err != nil {
		return err
	}
	deps := cl.Client.AppsV1().Deployments(cl.Namespace)
	cur, err := deps.Get(ctx, d.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err := deps.Create(ctx, &d, metav1.CreateOptions{})
		return err
	case err != nil:
		return err
	case *cur.Spec.Replicas != *d.Spec.Replicas:
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur, err := deps.Get(ctx, d.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Spec.Replicas = d.Spec.Replicas
			_, err = deps.Update(ctx, cur, metav1.UpdateOptions{})
			return err
		})
	}
	return nil
}

// ensureService makes the function's Service from spec.service unless it is
// there (EnsureFuncService creates it, or updates one that exists).
func ensureService(ctx context.Context, cl *kube.Cluster, fn *unstructured.Unstructured, labels map[string]string, owner []metav1.OwnerReference) error {
	svcs := cl.Client.CoreV1().Services(cl.Namespace)
	if _, err := svcs.Get(ctx, fn.GetName(), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		return err
	}
	var spec corev1.ServiceSpec
	rawSvc, _, _ := unstructured.NestedMap(fn.Object, "spec", "service")
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(rawSvc, &spec); err != nil {
		return err
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: fn.GetName(), Labels: labels, OwnerReferences: owner}, Spec: spec}
	_, err := svcs.Create(ctx, svc, metav1.CreateOptions{})
	return err
}
