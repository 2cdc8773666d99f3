package nuclio

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IngressName is the Ingress Nuclio's controller makes for a function whose HTTP
// trigger asks for one (pkg/platform/kube/types.go IngressNameFromFunctionName).
func IngressName(function string) string { return "nuclio-" + function }

// FunctionHost implements platform.HostRouter: with platform.options.ingress_url,
// the host of the function's Ingress as Nuclio made it (the dashboard renders it
// from the platform's host template, aligning its subdomain levels); "" otherwise.
// The Ingress is there once the function is ready: the controller makes it with
// the Deployment and the Service.
func (p *Platform) FunctionHost(ctx context.Context, name string) (string, error) {
	if p.cfg.IngressURL == "" {
		return "", nil
	}
	ing, err := p.Cluster.Client.NetworkingV1().Ingresses(p.Namespace()).Get(ctx, IngressName(name), metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("nuclio function %s: its ingress (platform.options.ingress_url): %w", name, err)
	}
	for _, r := range ing.Spec.Rules {
		if r.Host != "" {
			return r.Host, nil
		}
	}
	return "", fmt.Errorf("nuclio function %s: ingress %s has no host: the platform's kube.defaultHTTPIngressHostTemplate is unset (deploy/nuclio/ingress-values.yaml sets it)", name, ing.Name)
}
