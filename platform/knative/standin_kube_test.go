//go:build kube

package knative_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/faasbench/faasbench/platform/knative"
	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
)

// knativeStandIn is a small stand-in for Knative Serving's controllers, for
// a control plane where Knative cannot run (no pod runs anything here). For
// every Service in the namespace it does what faasbench depends on, as
// Knative's revision reconciler does (pkg/reconciler/revision/resources/
// deploy.go and meta.go in knative.dev/serving): a revision named
// <service>-<generation, 5 digits> whose Deployment "<revision>-deployment"
// carries the template's labels plus serving.knative.dev/service and
// serving.knative.dev/revision, owned by the Service; replicas = min-scale,
// (of the revision's PodAutoscaler), else initial-scale, else 1 (the autoscaler itself is not simulated); the
// previous revision's Deployment deleted; a PodAutoscaler per revision, made from the template's
// annotations and then read for min-scale (Scale sets the bounds there); and the Service's status:
// observedGeneration, Ready once the revision's pods are ready, url,
// address, latestReadyRevisionName. The real controller manager and KWOK
// then make the pods.
func knativeStandIn(ctx context.Context, t *testing.T, cl *kube.Cluster) {
	kubetest.EveryObject(ctx, t, "knative stand-in", cl, knative.ServiceGVR, func(ctx context.Context, o *unstructured.Unstructured) error {
		return reconcile(ctx, cl, o)
	})
}

func reconcile(ctx context.Context, cl *kube.Cluster, svc *unstructured.Unstructured) error {
	if svc.GetDeletionTimestamp() != nil {
		return nil
	}
	name, gen := svc.GetName(), svc.GetGeneration()
	rev := fmt.Sprintf("%s-%05d", name, gen)
	anns, _, _ := unstructured.NestedStringMap(svc.Object, "spec", "template", "metadata", "annotations")
	tlabels, _, _ := unstructured.NestedStringMap(svc.Object, "spec", "template", "metadata", "labels")
	// The revision's PodAutoscaler, made once from the template's annotations (MakePA copies the
	// revision's) and not brought back in line with them afterwards (reconcilePA updates only its
	// spec): the bounds on it are the autoscaler's.
	pas := cl.Dynamic.Resource(knative.PodAutoscalerGVR).Namespace(cl.Namespace)
	pa, err := pas.Get(ctx, rev, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		pa = &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": knative.PodAutoscalerGVR.GroupVersion().String(), "kind": "PodAutoscaler",
			"metadata": map[string]any{"name": rev, "labels": map[string]any{knative.LabelService: name, knative.LabelRevision: rev}},
			"spec":     map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": rev + "-deployment"}, "protocolType": "http1"},
		}}
		pa.SetAnnotations(anns)
		ctrl := true
		pa.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "serving.knative.dev/v1", Kind: "Service", Name: name, UID: svc.GetUID(), Controller: &ctrl}})
		if pa, err = pas.Create(ctx, pa, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("podautoscaler %s: %w", rev, err)
		}
	} else if err != nil {
		return err
	}
	anns = pa.GetAnnotations()
	replicas := int32(1)
	if v, ok := anns[knative.AnnInit]; ok {
		n, _ := strconv.Atoi(v)
		replicas = int32(n)
	}
	if v, ok := anns[knative.AnnMin]; ok {
		n, _ := strconv.Atoi(v)
		replicas = int32(n)
	}
	var podSpec corev1.PodSpec
	spec, _, _ := unstructured.NestedMap(svc.Object, "spec", "template", "spec")
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(spec, &podSpec); err != nil {
		return fmt.Errorf("service %s: pod spec: %w", name, err)
	}
	// Knative probes the user container's port (deploy.go rewrites the
	// probe to go through the queue-proxy).
	for i, c := range podSpec.Containers {
		if c.ReadinessProbe != nil && c.ReadinessProbe.HTTPGet != nil && len(c.Ports) > 0 {
			podSpec.Containers[i].ReadinessProbe.HTTPGet.Port = intstr.FromInt32(c.Ports[0].ContainerPort)
		}
	}
	labels := map[string]string{}
	for k, v := range tlabels {
		labels[k] = v
	}
	labels[knative.LabelService] = name
	labels["serving.knative.dev/configuration"] = name
	labels[knative.LabelRevision] = rev
	labels["app"] = rev
	deps := cl.Client.AppsV1().Deployments(cl.Namespace)
	d, err := deps.Get(ctx, rev+"-deployment", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		ctrl := true
		d = &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: rev + "-deployment", Labels: labels,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "serving.knative.dev/v1", Kind: "Service", Name: name, UID: svc.GetUID(), Controller: &ctrl}}},
			Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{knative.LabelRevision: rev}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec}},
		}
		if d, err = deps.Create(ctx, d, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("revision %s: %w", rev, err)
		}
	} else if err != nil {
		return err
	} else if *d.Spec.Replicas != replicas {
		d.Spec.Replicas = &replicas
		if d, err = deps.Update(ctx, d, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	old, err := deps.List(ctx, metav1.ListOptions{LabelSelector: knative.LabelService + "=" + name})
	if err != nil {
		return err
	}
	for _, o := range old.Items {
		if o.Name != d.Name && o.DeletionTimestamp == nil {
			if err := deps.Delete(ctx, o.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
	}
	ready := d.Status.ObservedGeneration == d.Generation && d.Status.ReadyReplicas >= replicas && d.Status.Replicas == replicas
	// A revision once ready stays the latest ready while its autoscaler scales it (Knative's
	// revision stays Ready; only a new revision moves latestReadyRevisionName).
	cur, _, _ := unstructured.NestedMap(svc.Object, "status")
	ready = ready || cur["latestReadyRevisionName"] == rev
	readyStatus, reason := "Unknown", "Deploying"
	if ready {
		readyStatus, reason = "True", ""
	}
	cond := func(typ string) map[string]any {
		return map[string]any{"type": typ, "status": readyStatus, "reason": reason, "lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}
	}
	st := map[string]any{
		"observedGeneration":        gen,
		"url":                       fmt.Sprintf("http://%s.%s.example.com", name, cl.Namespace),
		"address":                   map[string]any{"url": fmt.Sprintf("http://%s.%s.svc.cluster.local", name, cl.Namespace)},
		"latestCreatedRevisionName": rev,
		"conditions":                []any{cond("ConfigurationsReady"), cond("Ready"), cond("RoutesReady")},
	}
	if ready {
		st["latestReadyRevisionName"] = rev
	}
	if cur["observedGeneration"] == gen && (cur["latestReadyRevisionName"] == rev) == ready {
		return nil
	}
	svc.Object["status"] = st
	_, err = cl.Dynamic.Resource(knative.ServiceGVR).Namespace(cl.Namespace).UpdateStatus(ctx, svc, metav1.UpdateOptions{})
	return err
}
