package nuclio

import (
	"context"

	"github.com/faasbench/faasbench/platform"
)

var (
	_ platform.Restarter        = (*Platform)(nil)
	_ platform.ComponentSampler = (*Platform)(nil)
)

// Restart implements platform.Restarter: every Deployment of Nuclio's own
// namespace (the controller and the dashboard) rolls out new pods, as `kubectl rollout restart` does,
// and the restart returns once each has all its replicas new and available.
func (p *Platform) Restart(ctx context.Context) (string, error) {
	return p.Session.RestartComponents(ctx, "Nuclio", p.cfg.NuclioNamespace, nil)
}

// SampleComponents implements platform.ComponentSampler: every pod of
// Nuclio's own namespace, from the kubelets.
func (p *Platform) SampleComponents(ctx context.Context) ([]platform.ComponentUsage, error) {
	return p.Session.SampleNamespace(ctx, p.cfg.NuclioNamespace)
}
