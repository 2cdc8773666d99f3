package fission

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/faasbench/faasbench/platform/kube"
)

// waitRoute waits until Fission's router says it serves the function's
// HTTPTrigger: the trigger's status condition Ready is True for its
// current generation. The router writes it after it has swapped the mux
// with the trigger's route in (pkg/router/httpTriggers.go updateRouter and
// incremental.go materialize, markTriggerCondition: "trigger is serving").
// Until then the router answers the function's URL with gorilla/mux's
// "404 page not found": found on the real node, where a newdeploy function
// with min_scale 0 (whose Deploy waits for no pod) was called right after
// its deploy and answered 404.
func (p *Platform) waitRoute(ctx context.Context, name string) error {
	triggers := p.Cluster.Dynamic.Resource(TriggerGVR).Namespace(p.Namespace())
	last := "the trigger has no status yet"
	err := kube.Poll(ctx, p.ReadyTimeout, 20*time.Millisecond, func(ctx context.Context) (bool, error) {
		u, err := triggers.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err.Error() // the API server busy: looked at again, or the timeout says it
			return false, nil
		}
		ok, why := triggerServing(u)
		last = why
		return ok, nil
	})
	if errors.Is(err, kube.ErrTimeout) {
		return fmt.Errorf("function %s: Fission's router did not say it serves the function's HTTPTrigger within %s (platform.options.ready_timeout; its status condition Ready, which Fission's router writes from v1.27.0, is %s): %w",
			name, p.ReadyTimeout, last, err)
	}
	if err != nil {
		return fmt.Errorf("function %s: %w", name, err)
	}
	return nil
}

// triggerServing says whether an HTTPTrigger's status condition Ready is
// True for the trigger's current generation (a condition written for an
// earlier spec says nothing of this one), and if not, what it says.
func triggerServing(u *unstructured.Unstructured) (bool, string) {
	m := readyCondition(u)
	if m == nil {
		return false, "not written yet"
	}
	gen, _, _ := unstructured.NestedInt64(m, "observedGeneration")
	status, _ := m["status"].(string)
	reason, _ := m["reason"].(string)
	msg, _ := m["message"].(string)
	switch {
	case gen != u.GetGeneration():
		return false, fmt.Sprintf("%s for generation %d, not the trigger's %d", status, gen, u.GetGeneration())
	case status == string(metav1.ConditionTrue):
		return true, ""
	}
	return false, fmt.Sprintf("%s (%s: %s)", status, reason, msg)
}

// readyCondition is the status condition of type Ready a Fission object
// carries (the executor's on a Function, the router's on an HTTPTrigger),
// nil when it has none.
func readyCondition(u *unstructured.Unstructured) map[string]any {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
			return m
		}
	}
	return nil
}
