package knative

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/faasbench/faasbench/platform/kube"
)

// PodAutoscalerGVR is Knative's PodAutoscaler: one per Revision, of the revision's name, made by
// the revision reconciler with the revision's annotations.
var PodAutoscalerGVR = schema.GroupVersionResource{Group: "autoscaling.internal.knative.dev", Version: "v1alpha1", Resource: "podautoscalers"}

// Scale implements platform.Platform: min-scale = max-scale = replicas on the PodAutoscaler of
// the Service's latest ready revision, which keeps serving: no new revision, no drain. Read in
// knative.dev/serving v0.42.2: the revision reconciler makes the PodAutoscaler from the
// revision's annotations once and afterwards brings only its spec back in line
// (pkg/reconciler/revision/reconcile_resources.go, reconcilePA), and the autoscaler takes the
// bounds from the PodAutoscaler's own annotations (pkg/apis/autoscaling/v1alpha1, ScaleBounds),
// so bounds set there hold for the revision's life. The Service's template keeps the bounds it
// was deployed with: a later template change starts a revision with those. Knative's webhook
// checks the PodAutoscaler's annotations as the revision's (max-scale within the cluster's
// max-scale-limit): its refusal is the user's error.
func (p *Platform) Scale(ctx context.Context, name string, replicas int) error {
	if replicas < 0 {
		return fmt.Errorf("scale %s: replicas %d is negative", name, replicas)
	}
	st, err := p.serviceStatus(ctx, name)
	if err != nil {
		return fmt.Errorf("scale %s: %w", name, err)
	}
	if st.LatestReady == "" {
		return fmt.Errorf("scale %s: the service has no ready revision to scale", name)
	}
	n := strconv.Itoa(replicas)
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{AnnMin: n, AnnMax: n}}})
	if err != nil {
		return err
	}
	pas := p.Cluster.Dynamic.Resource(PodAutoscalerGVR).Namespace(p.Namespace())
	if _, err := pas.Patch(ctx, st.LatestReady, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("scale %s: the PodAutoscaler of revision %s: %w", name, st.LatestReady, kube.Refusal(err))
	}
	if fn, ok := p.functions.Get(name); ok {
		fn.Replicas = replicas
		p.functions.Put(name, fn)
	}
	return p.WaitReplicas(ctx, name, replicas)
}
