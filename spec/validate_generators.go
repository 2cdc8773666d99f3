package spec

import (
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// validateGenerators checks load.generators: where the generators run and
// what a Kubernetes Job of them needs.
func (p *Parsed) validateGenerators(g *GeneratorsSpec, add func(path, format string, args ...any)) {
	if g.Count < 1 || g.Count > MaxGenerators {
		add("load.generators.count", "%d: want 1..%d", g.Count, MaxGenerators)
	}
	switch g.OnMissing {
	case "", "partial", "fail":
	default:
		add("load.generators.on_missing", "%q: want partial (go on with the generators that started, the cells marked partial) or fail", g.OnMissing)
	}
	kubeOnly := map[string]bool{"load.generators.image": g.Image != "", "load.generators.pull_policy": g.PullPolicy != "",
		"load.generators.cpu": g.CPU != "", "load.generators.memory": g.Memory != "", "load.generators.node_selector": len(g.NodeSelector) > 0,
		"load.generators.start_timeout": g.StartTimeout != 0}
	switch g.Where {
	case "", "local":
		for path, set := range kubeOnly {
			if set {
				add(path, "applies to where: kubernetes only")
			}
		}
		return
	case "kubernetes":
	default:
		add("load.generators.where", "%q: want local (processes on this machine) or kubernetes (an Indexed Job of agent pods)", g.Where)
		return
	}
	switch p.Spec.Platform.Name {
	case "local", "baseline":
		add("load.generators.where", "kubernetes: the %s platform listens on this machine's loopback, which pods cannot reach: use where: local", p.Spec.Platform.Name)
	}
	if g.Image == "" {
		add("load.generators.image", "required with where: kubernetes (the agent image: `faasbench image agent -O agent.tar` builds one)")
	}
	switch g.PullPolicy {
	case "", "Always", "IfNotPresent", "Never":
	default:
		add("load.generators.pull_policy", "%q: want Always, IfNotPresent or Never", g.PullPolicy)
	}
	for path, q := range map[string]string{"load.generators.cpu": g.CPU, "load.generators.memory": g.Memory} {
		if q == "" {
			continue
		}
		if v, err := resource.ParseQuantity(q); err != nil || v.Sign() <= 0 {
			add(path, "%q: want a positive Kubernetes quantity (\"2\", \"500m\", \"1Gi\")", q)
		}
	}
	for k, v := range g.NodeSelector {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			add("load.generators.node_selector", "label %q: %s", k, errs[0])
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			add("load.generators.node_selector", "value %q of %s: %s", v, k, errs[0])
		}
	}
	if g.StartTimeout < 0 {
		add("load.generators.start_timeout", "%v: must not be negative", g.StartTimeout)
	}
}
