package nuclio

import (
	"context"

	"github.com/faasbench/faasbench/platform"
)

var (
	_ platform.Restarter        = (*Platform)(nil)
	_ platform.ComponentSampler = (*Platform)(nil)
)

// notFunctions selects what of Nuclio's namespace is not a function: the
// chart's controller, dashboard, autoscaler and DLX (nuclio.io/class:
// service) and what runs beside them, never a function's Deployment or pods
// (nuclio.io/class: function), which the chart's namespaced controller puts
// in the same namespace.
const notFunctions = "nuclio.io/class!=function"

// Restart implements platform.Restarter: every Deployment of Nuclio's own
// namespace but the functions' (the controller, dashboard, autoscaler, DLX)
// rolls out new pods, as `kubectl rollout restart` does, and the restart
// returns once each has all its replicas new and available.
func (p *Platform) Restart(ctx context.Context) (string, error) {
	return p.Session.RestartComponentsSelected(ctx, "Nuclio", p.cfg.NuclioNamespace, notFunctions, nil)
}

// SampleComponents implements platform.ComponentSampler: every pod of
// Nuclio's own namespace but the functions', from the kubelets.
func (p *Platform) SampleComponents(ctx context.Context) ([]platform.ComponentUsage, error) {
	return p.Session.SampleNamespaceSelected(ctx, p.cfg.NuclioNamespace, notFunctions)
}
