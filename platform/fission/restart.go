package fission

import (
	"context"

	"github.com/faasbench/faasbench/platform"
)

var (
	_ platform.Restarter        = (*Platform)(nil)
	_ platform.ComponentSampler = (*Platform)(nil)
)

// Restart implements platform.Restarter: every Deployment of Fission's own
// namespace (the router, the executor, the controller and the buildermgr) rolls out new pods, as `kubectl rollout restart` does,
// and the restart returns once each has all its replicas new and available.
func (p *Platform) Restart(ctx context.Context) (string, error) {
	return p.Session.RestartComponents(ctx, "Fission", p.cfg.FissionNamespace, nil)
}

// SampleComponents implements platform.ComponentSampler: every pod of
// Fission's own namespace, from the kubelets.
func (p *Platform) SampleComponents(ctx context.Context) ([]platform.ComponentUsage, error) {
	return p.Session.SampleNamespace(ctx, p.cfg.FissionNamespace)
}
