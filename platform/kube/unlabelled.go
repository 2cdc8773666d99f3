package kube

import (
	"context"
	"fmt"
	"maps"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// deleteUnlabelledOwners deletes the Deployments a platform's API made for
// the run without faasbench's labels on the Deployment itself, only on its
// pod template (faas-netes: the Deployment carries faas_function alone,
// pkg/handlers/deploy.go), and the Service paired with each (same
// selector): cleaning by label deletes their pods, which their
// ReplicaSets make again, so a killed run would leave them running. Only a
// Deployment no other object owns is deleted (one a controller owns goes
// with its owner), and only a Service whose selector is exactly the
// Deployment's.
func (c *Cluster) deleteUnlabelledOwners(ctx context.Context, namespace, selector string) ([]Cleaned, []error) {
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, []error{fmt.Errorf("selector %q: %w", selector, err)}
	}
	deps, err := c.Client.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, []error{fmt.Errorf("list deployments: %w", err)}
	}
	var out []Cleaned
	var errs []error
	bg := metav1.DeletePropagationBackground
	for _, d := range deps.Items {
		if d.DeletionTimestamp != nil || len(d.OwnerReferences) > 0 || sel.Matches(labels.Set(d.Labels)) ||
			!sel.Matches(labels.Set(d.Spec.Template.Labels)) || d.Spec.Selector == nil || len(d.Spec.Selector.MatchLabels) == 0 {
			continue
		}
		if err := c.Client.AppsV1().Deployments(d.Namespace).Delete(ctx, d.Name, metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete deployments %s/%s: %w", d.Namespace, d.Name, err))
			continue
		}
		out = append(out, Cleaned{Kind: "deployments", Namespace: d.Namespace, Name: d.Name})
		svcs, err := c.Client.CoreV1().Services(d.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			errs = append(errs, fmt.Errorf("list services: %w", err))
			continue
		}
		for _, s := range svcs.Items {
			if s.DeletionTimestamp != nil || len(s.OwnerReferences) > 0 || !maps.Equal(s.Spec.Selector, d.Spec.Selector.MatchLabels) {
				continue
			}
			if err := c.Client.CoreV1().Services(s.Namespace).Delete(ctx, s.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("delete services %s/%s: %w", s.Namespace, s.Name, err))
				continue
			}
			out = append(out, Cleaned{Kind: "services", Namespace: s.Namespace, Name: s.Name})
		}
	}
	return out, errs
}
