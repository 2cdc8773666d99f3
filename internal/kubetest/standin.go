package kubetest

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/faasbench/faasbench/platform"
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
