//go:build kube

package nuclio_test

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"

	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
	"github.com/faasbench/faasbench/platform/nuclio"
)

// nuclioStandIn is a small stand-in for Nuclio's controller (which cannot
// run here): for every NuclioFunction it makes what the controller makes
// (pkg/platform/kube/functionres/lazy.go in github.com/nuclio/nuclio): a
// Deployment and a NodePort Service named nuclio-<name>, labelled with the
// function's labels plus nuclio.io/function-name and nuclio.io/class,
// owned by the function, with the replicas the controller computes
// (pkg/platform/kube/apis/nuclio.io/v1beta1/types.go GetComputedReplicas:
// 0 when spec.disable or scaled to zero, else spec.replicas, else
// minReplicas or 1 while the function waits for its resources); like the controller
// (pkg/platform/kube/controller/nucliofunction.go) it acts only on a
// function in state waitingForResourceConfiguration, ready or one of the
// scale to zero states, and moves a waiting one to ready once its pods are
// (waitingForScaleResourceToZero: to scaledToZero once none is left; 0
// replicas there and in scaledToZero), with httpPort the Service's node
// port, written with the object (Nuclio's CRD has no status subresource).
// A function whose project (nuclio.io/project-name) does not exist in its
// namespace goes to state error "Failed to get project <name>", as the
// controller built from nuclio 1.14.1 did on this control plane
// (nucliofunction.go: it reads the project to enrich node selectors).
// The real controllers and KWOK make the pods.
func nuclioStandIn(ctx context.Context, t *testing.T, cl *kube.Cluster) {
	kubetest.EveryObject(ctx, t, "nuclio stand-in", cl, nuclio.FunctionGVR, func(ctx context.Context, o *unstructured.Unstructured) error {
		return reconcile(ctx, cl, o)
	})
}

// computedReplicas is GetComputedReplicas; found false: leave as is.
func computedReplicas(fn *unstructured.Unstructured, state string) (int32, bool) {
	if disabled, _, _ := unstructured.NestedBool(fn.Object, "spec", "disable"); disabled ||
		state == "imported" || state == nuclio.StateScaledToZero || state == nuclio.StateToZero {
		return 0, true
	}
	if n, found, _ := unstructured.NestedInt64(fn.Object, "spec", "replicas"); found {
		return int32(max(n, 0)), true
	}
	if state == nuclio.StateWaitingForResources || state == stateFromZero {
		n, _, _ := unstructured.NestedInt64(fn.Object, "spec", "minReplicas")
		return int32(max(n, 1)), true
	}
	return 0, false
}

// stateFromZero is the state Nuclio's DLX gives a function at zero it
// raises (pkg/functionconfig/types.go); the controller configures the
// resources and moves it on to ready, as it moves nuclio.StateToZero (the
// autoscaler's) on to scaledToZero.
const stateFromZero = "waitingForScaleResourceFromZero"

func reconcile(ctx context.Context, cl *kube.Cluster, fn *unstructured.Unstructured) error {
	state, _, _ := unstructured.NestedString(fn.Object, "status", "state")
	switch {
	case fn.GetDeletionTimestamp() != nil:
		return nil
	case state == nuclio.StateWaitingForResources, state == "ready", state == nuclio.StateToZero, state == stateFromZero, state == nuclio.StateScaledToZero:
	default:
		return nil
	}
	project := fn.GetLabels()["nuclio.io/project-name"]
	if project == "" {
		project = "default"
	}
	if _, err := cl.Dynamic.Resource(nuclio.ProjectGVR).Namespace(fn.GetNamespace()).Get(ctx, project, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		fn.Object["status"] = map[string]any{"state": "error", "message": "Failed to get project " + project}
		_, err := cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(fn.GetNamespace()).Update(ctx, fn, metav1.UpdateOptions{})
		return err
	} else if err != nil {
		return err
	}
	name := "nuclio-" + fn.GetName()
	n, set := computedReplicas(fn, state)
	labels := map[string]string{}
	for k, v := range fn.GetLabels() {
		labels[k] = v
	}
	labels[nuclio.LabelFunctionName] = fn.GetName()
	labels["nuclio.io/class"] = "function"
	image, _, _ := unstructured.NestedString(fn.Object, "spec", "image")
	envRaw, _, _ := unstructured.NestedSlice(fn.Object, "spec", "env")
	var env []corev1.EnvVar
	for _, e := range envRaw {
		var ev corev1.EnvVar
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(e.(map[string]any), &ev); err != nil {
			return err
		}
		env = append(env, ev)
	}
	ctrl := true
	owner := []metav1.OwnerReference{{APIVersion: "nuclio.io/v1beta1", Kind: "NuclioFunction", Name: fn.GetName(), UID: fn.GetUID(), Controller: &ctrl}}
	deps := cl.Client.AppsV1().Deployments(cl.Namespace)
	d, err := deps.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		d = &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, OwnerReferences: owner},
			Spec: appsv1.DeploymentSpec{Replicas: &n, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{nuclio.LabelFunctionName: fn.GetName()}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nuclio", Image: image, Env: env, Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}}}}}}
		if d, err = deps.Create(ctx, d, metav1.CreateOptions{}); err != nil {
			return err
		}
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, OwnerReferences: owner},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Selector: map[string]string{nuclio.LabelFunctionName: fn.GetName()},
				Ports: []corev1.ServicePort{{Name: "http", Port: 8080, TargetPort: intstr.FromInt32(8080)}}}}
		if _, err := cl.Client.CoreV1().Services(cl.Namespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			return err
		}
	} else if err != nil {
		return err
	} else if set && *d.Spec.Replicas != n {
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur, err := deps.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Spec.Replicas = &n
			d, err = deps.Update(ctx, cur, metav1.UpdateOptions{})
			return err
		}); err != nil {
			return err
		}
	}
	next := "ready"
	switch state {
	case "ready", nuclio.StateScaledToZero:
		return nil
	case nuclio.StateToZero:
		next = nuclio.StateScaledToZero
	}
	svc, err := cl.Client.CoreV1().Services(cl.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if d.Status.ObservedGeneration != d.Generation || d.Status.ReadyReplicas != n || d.Status.Replicas != n {
		return nil
	}
	fn.Object["status"] = map[string]any{"state": next, "httpPort": int64(svc.Spec.Ports[0].NodePort),
		"internalInvocationUrls": []any{fmt.Sprintf("%s.%s.svc.cluster.local:8080", name, cl.Namespace)}}
	_, err = cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(cl.Namespace).Update(ctx, fn, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) {
		return nil // changed meanwhile: the next pass sees the new version
	}
	return err
}
