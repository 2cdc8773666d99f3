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
// namespaces when it is empty): the platform's own kinds first (extra),
// with foreground propagation, waiting (at most extraGone) until they and
// what they own are gone: their controllers own Deployments, Services and
// pods and make them again while the owner exists (the real node showed a
// Knative revision's Deployment and pods recreated under a run's cleanup
// for minutes); then Deployments a platform's API made with the run's labels
// on their pods only (deleteUnlabelledOwners); then the core kinds, owned
// objects going with their owners (background; a pod with a controller is left to the garbage
// collector). A kind the server does not
// know is skipped.
func (c *Cluster) Clean(ctx context.Context, namespace, selector string, extra []schema.GroupVersionResource) ([]Cleaned, error) {
	out, errs := c.deleteAll(ctx, namespace, selector, extra, metav1.DeletePropagationForeground)
	if len(out) > 0 {
		errs = append(errs, c.waitGone(ctx, namespace, selector, extra, extraGone))
	}
	owners, oerrs := c.deleteUnlabelledOwners(ctx, namespace, selector)
	out, errs = append(out, owners...), append(errs, oerrs...)
	core, cerrs := c.deleteAll(ctx, namespace, selector, coreKinds, metav1.DeletePropagationBackground)
	if len(out) > 0 {
		// A Deployment the platform's controller made went with its owner in the foreground: it
		// stays, marked deleted, until its ReplicaSets and pods are gone.
		cerrs = append(cerrs, c.waitGone(ctx, namespace, selector, []schema.GroupVersionResource{deploymentsGVR}, extraGone))
	}
	return append(out, core...), errors.Join(append(errs, cerrs...)...)
}

var deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

// extraGone bounds the wait for a platform's own objects to go (a Knative
// revision's pod drains for about 30 s before it ends).
const extraGone = 3 * time.Minute

func (c *Cluster) deleteAll(ctx context.Context, namespace, selector string, kinds []schema.GroupVersionResource, policy metav1.DeletionPropagation) ([]Cleaned, []error) {
	var out []Cleaned
	var errs []error
	for _, gvr := range kinds {
		list, err := c.Dynamic.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("list %s: %w", gvr.Resource, err))
			continue
		}
		for _, it := range list.Items {
			// A pod with a controller (a ReplicaSet, a Job) is the garbage collector's: it deletes
			// the pod after its owner, and the owner makes it again if it goes first. Deleted by hand
			// while its ReplicaSet lived on (its Deployment deleted in the background, the collector
			// not yet at the ReplicaSet), it was made again at once, and a pod could appear after
			// WaitNoPods had seen none.
			if it.GetDeletionTimestamp() != nil || (gvr.Resource == "pods" && metav1.GetControllerOfNoCopy(&it) != nil) {
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
	return out, errs
}

// waitGone waits until no object of kinds matching selector is left.
func (c *Cluster) waitGone(ctx context.Context, namespace, selector string, kinds []schema.GroupVersionResource, timeout time.Duration) error {
	var left []string
	err := Poll(ctx, timeout, 200*time.Millisecond, func(ctx context.Context) (bool, error) {
		left = left[:0]
		for _, gvr := range kinds {
			list, err := c.Dynamic.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
			if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
				continue
			}
			if err != nil {
				return false, nil // a failed list is tried again
			}
			for _, it := range list.Items {
				left = append(left, gvr.Resource+" "+it.GetNamespace()+"/"+it.GetName())
			}
		}
		return len(left) == 0, nil
	})
	if errors.Is(err, ErrTimeout) {
		return fmt.Errorf("still there after %s (what they own is deleted first): %v: %w", timeout, left, err)
	}
	return err
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
