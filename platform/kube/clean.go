package kube

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Core kinds faasbench may create, deleted by Clean in this order
// (autoscalers first, so nothing scales back up while deleting).
var coreKinds = []schema.GroupVersionResource{
	{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"},
	{Group: "", Version: "v1", Resource: "services"},
	{Group: "apps", Version: "v1", Resource: "deployments"},
	{Group: "batch", Version: "v1", Resource: "jobs"},
	{Group: "", Version: "v1", Resource: "configmaps"},
	{Group: "", Version: "v1", Resource: "secrets"},
	{Group: "", Version: "v1", Resource: "pods"},
}

// Cleaned is one deleted object.
type Cleaned struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

func (c Cleaned) String() string {
	if c.Namespace == "" {
		return c.Kind + " " + c.Name
	}
	return c.Kind + " " + c.Namespace + "/" + c.Name
}

// Clean deletes every object matching selector in namespace (all
// namespaces when it is empty): the platform's own kinds (extra, deleted
// first: their controllers own Deployments and would make them again),
// then the core kinds. A kind the server does not know is skipped. Owned
// objects go with their owners (background propagation).
func (c *Cluster) Clean(ctx context.Context, namespace, selector string, extra []schema.GroupVersionResource) ([]Cleaned, error) {
	var out []Cleaned
	var errs []error
	policy := metav1.DeletePropagationBackground
	for _, gvr := range append(append([]schema.GroupVersionResource{}, extra...), coreKinds...) {
		list, err := c.Dynamic.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("list %s: %w", gvr.Resource, err))
			continue
		}
		for _, it := range list.Items {
			if it.GetDeletionTimestamp() != nil {
				continue
			}
			err := c.Dynamic.Resource(gvr).Namespace(it.GetNamespace()).Delete(ctx, it.GetName(), metav1.DeleteOptions{PropagationPolicy: &policy})
			if err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("delete %s %s/%s: %w", gvr.Resource, it.GetNamespace(), it.GetName(), err))
				continue
			}
			out = append(out, Cleaned{Kind: gvr.Resource, Namespace: it.GetNamespace(), Name: it.GetName()})
		}
	}
	return out, errors.Join(errs...)
}

// WaitNoPods waits until no pod matching selector is left in namespace.
func (c *Cluster) WaitNoPods(ctx context.Context, namespace, selector string, timeout time.Duration) error {
	left := -1
	err := Poll(ctx, timeout, 100*time.Millisecond, func(ctx context.Context) (bool, error) {
		pods, err := c.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, nil // a failed list is tried again
		}
		left = len(pods.Items)
		return left == 0, nil
	})
	if errors.Is(err, ErrTimeout) {
		return fmt.Errorf("pods %q in %s still there (%d) after %s: %w", selector, namespace, left, timeout, ErrTimeout)
	}
	return err
}

// DeleteNamespace deletes a namespace faasbench created (only if it carries
// faasbench's label) and waits up to timeout for it to go.
func (c *Cluster) DeleteNamespace(ctx context.Context, name string) error {
	ns, err := c.Client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("namespace %s: %w", name, err)
	}
	if ns.Labels[LabelManagedBy] != ManagedBy {
		return fmt.Errorf("namespace %s was not created by faasbench: left in place", name)
	}
	if err := c.Client.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete namespace %s: %w", name, err)
	}
	return nil
}
