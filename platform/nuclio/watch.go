package nuclio

import (
	"context"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform"
)

// controllerLabel selects Nuclio's controller Deployment as its chart
// labels it (hack/k8s/helm/nuclio templates/deployment/controller.yaml).
const controllerLabel = "nuclio.io/app=controller"

// watchedNamespace is the namespace Nuclio's controller d acts in, as the
// controller resolves it (cmd/controller/main.go, pkg/common/k8s.go
// ResolveNamespace): its --namespace argument, else its environment's
// NUCLIO_CONTROLLER_NAMESPACE, else ("" or @nuclio.selfNamespace) its own
// namespace; "*" is every namespace.
func watchedNamespace(d *appsv1.Deployment) string {
	own := d.Namespace
	for _, c := range d.Spec.Template.Spec.Containers {
		args := append(slices.Clone(c.Command), c.Args...)
		for i, a := range args {
			if v, ok := cutFlag(a, "namespace"); ok {
				if v == "" && i+1 < len(args) {
					v = args[i+1]
				}
				if v != "" {
					return v
				}
			}
		}
		for _, e := range c.Env {
			if e.Name == "NUCLIO_CONTROLLER_NAMESPACE" && e.Value != "" && e.Value != "@nuclio.selfNamespace" && e.Value != "nil" && e.Value != "none" {
				return e.Value
			}
		}
	}
	return own
}

// cutFlag reads a Go flag: "-name=value" or "--name=value" (value), "-name"
// or "--name" ("", the value follows); ok when a is that flag.
func cutFlag(a, name string) (string, bool) {
	a, ok := strings.CutPrefix(a, "-")
	if !ok {
		return "", false
	}
	a = strings.TrimPrefix(a, "-")
	if a == name {
		return "", true
	}
	return strings.CutPrefix(a, name+"=")
}

// checkWatched refuses a run in a namespace Nuclio's controller does not act
// in: its functions would wait for a state that never comes. A controller
// that cannot be read (none in platform.options.nuclio_namespace, or no
// permission) is not judged.
func (p *Platform) checkWatched(ctx context.Context) error {
	ds, err := p.Cluster.Client.AppsV1().Deployments(p.cfg.NuclioNamespace).List(ctx, metav1.ListOptions{LabelSelector: controllerLabel})
	if err != nil || len(ds.Items) == 0 {
		return nil
	}
	w := watchedNamespace(&ds.Items[0])
	if w == "*" || w == p.Namespace() {
		return nil
	}
	return fmt.Errorf("platform.options.namespace: %w: Nuclio's controller (%s/%s) acts only in namespace %q, so a function in %q would never be deployed: run in %q, or install Nuclio with rbac.crdAccessMode=cluster (the controller then acts in every namespace)",
		platform.ErrRefused, ds.Items[0].Namespace, ds.Items[0].Name, w, p.Namespace(), w)
}
