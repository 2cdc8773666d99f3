package kubetest

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Every runs pass every 30 ms until ctx ends, in the background: the loop
// of the tests' stand-ins for platform controllers. Conflicts, objects
// gone and objects already there are a controller's everyday life and
// retried on the next pass; any other error fails the test.
func Every(ctx context.Context, t testing.TB, name string, pass func(context.Context) error) {
	go func() {
		for ctx.Err() == nil {
			err := pass(ctx)
			if err != nil && ctx.Err() == nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) && !apierrors.IsAlreadyExists(err) {
				t.Errorf("%s: %v", name, err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(30 * time.Millisecond):
			}
		}
	}()
}

// EveryObject is Every for a stand-in that reconciles each object of one
// kind in the cluster's namespace on every pass, as a controller does.
func EveryObject(ctx context.Context, t testing.TB, name string, cl *kube.Cluster, gvr schema.GroupVersionResource,
	reconcile func(context.Context, *unstructured.Unstructured) error) {
	Every(ctx, t, name, func(ctx context.Context) error {
		list, err := cl.Dynamic.Resource(gvr).Namespace(cl.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for i := range list.Items {
			if err := reconcile(ctx, &list.Items[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// DesiredSteps are the desired counts of a replica timeline's "scaled"
// events, in order.
func DesiredSteps(evs []platform.ReplicaEvent) []int {
	var out []int
	for _, e := range evs {
		if e.Kind == "scaled" {
			out = append(out, e.Desired)
		}
	}
	return out
}
