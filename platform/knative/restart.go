package knative

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/faasbench/faasbench/platform"
)

var _ platform.Restarter = (*Platform)(nil)

// Restart implements platform.Restarter: every Deployment of the Serving
// namespace (controller, webhook, autoscaler, activator and the ingress's
// controller), then of the ingress's own namespace (Kourier's gateway), rolls
// out new pods, as `kubectl rollout restart` does; it returns once they are
// available and the webhook admits a
// Service again (a dry-run create goes through it: until its new pod is
// behind its Service, a deploy would be refused by the API server with
// "failed calling webhook"). The autoscaler's and activator's state (their
// metric windows, the activator's throttler) starts empty.
func (p *Platform) Restart(ctx context.Context) (string, error) {
	probe := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": ServiceGVR.GroupVersion().String(), "kind": "Service",
		"metadata": map[string]any{"name": "faasbench-restart-probe", "namespace": p.Namespace()},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"image": "faasbench/hello-go:local",
				// As the functions' own: Knative's webhook warns of a container without it.
				"securityContext": map[string]any{"allowPrivilegeEscalation": false, "runAsNonRoot": true,
					"capabilities":   map[string]any{"drop": []any{"ALL"}},
					"seccompProfile": map[string]any{"type": "RuntimeDefault"}}}}}}},
	}}
	said, err := p.Session.RestartComponents(ctx, "Knative Serving", p.cfg.ServingNamespace, func(ctx context.Context) error {
		_, err := p.services().Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return fmt.Errorf("the webhook does not admit a Service yet: %w", err)
		}
		return nil
	})
	if err != nil || p.cfg.IngressNamespace == "" {
		return said, err
	}
	gw, err := p.Session.RestartComponents(ctx, "Knative's ingress", p.cfg.IngressNamespace, nil)
	if err != nil {
		return said, err
	}
	return said + "; " + gw, nil
}

var _ platform.ComponentSampler = (*Platform)(nil)

// SampleComponents implements platform.ComponentSampler: every pod of the
// Serving namespace (controller, webhook, autoscaler, activator, the
// ingress's controller) and of the ingress's namespace (its gateway), from
// the kubelets.
func (p *Platform) SampleComponents(ctx context.Context) ([]platform.ComponentUsage, error) {
	u, err := p.Session.SampleNamespace(ctx, p.cfg.ServingNamespace)
	if err != nil || p.cfg.IngressNamespace == "" {
		return u, err
	}
	g, err := p.Session.SampleNamespace(ctx, p.cfg.IngressNamespace)
	if err != nil {
		return u, fmt.Errorf("the ingress's namespace %s: %w", p.cfg.IngressNamespace, err)
	}
	return append(u, g...), nil
}
