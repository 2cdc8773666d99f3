package knative

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

var _ platform.Restarter = (*Platform)(nil)

// restartTimeout bounds a restart of Serving's components (on the real
// node, each Deployment's new pod is available in a few seconds).
const restartTimeout = 5 * time.Minute

// Restart implements platform.Restarter: every Deployment of the Serving
// namespace (controller, webhook, autoscaler, activator and, where it runs
// there, the ingress) rolls out new pods, as `kubectl rollout restart`
// does; it returns once they are available and the webhook admits a
// Service again (a dry-run create goes through it: until its new pod is
// behind its Service, a deploy would be refused by the API server with
// "failed calling webhook"). The autoscaler's and activator's state (their
// metric windows, the activator's throttler) starts empty.
func (p *Platform) Restart(ctx context.Context) (string, error) {
	ns := p.cfg.ServingNamespace
	names, err := p.Cluster.RestartDeployments(ctx, ns, "", restartTimeout)
	if err != nil {
		return "", fmt.Errorf("knative: restart: %w", err)
	}
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
	var last error
	err = kube.Poll(ctx, time.Minute, 500*time.Millisecond, func(ctx context.Context) (bool, error) {
		_, last = p.services().Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return last == nil, nil
	})
	if errors.Is(err, kube.ErrTimeout) {
		return "", fmt.Errorf("knative: restart: Serving's webhook did not admit a Service in 1 m: %v", last)
	}
	if err != nil {
		return "", fmt.Errorf("knative: restart: %w", err)
	}
	return fmt.Sprintf("Knative Serving restarted: every Deployment of %s rolled out new pods (%s)", ns, strings.Join(names, ", ")), nil
}

var _ platform.ComponentSampler = (*Platform)(nil)

// SampleComponents implements platform.ComponentSampler: every pod of the
// Serving namespace (controller, webhook, autoscaler, activator and the
// ingress where it runs there), from the kubelets.
func (p *Platform) SampleComponents(ctx context.Context) ([]platform.ComponentUsage, error) {
	return p.Session.SampleNamespace(ctx, p.cfg.ServingNamespace)
}
