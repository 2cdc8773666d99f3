package openwhisk

import (
	"context"
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// The action containers' CPU and memory. With the Kubernetes container factory every action container is a pod
// in the invokers' namespace, and the invoker labels it with its action when it initialises it for one
// (KubernetesContainer.initialize → KubernetesClient.addLabel: openwhisk/action, the action's name, and
// openwhisk/namespace, its namespace); a stem cell (prewarm) has neither label until then, and keeps its
// pod name (wsk<invoker>-<n>-prewarm-<kind>). OpenWhisk's API says nothing of containers, so per-container
// usage comes from the cluster: platform.options.pods_namespace names the invokers' namespace (with the spec's
// platform.kubeconfig and platform.context, and prometheus_url), and the kube sampler reads the pods the labels select. The invoker
// labels a pod only if its Role may patch pods (deploy-kube's invoker Role grants update and patch): without
// it the edit fails, OpenWhisk goes on without the label, and no pod is ever selected.

// ActionLabel and NamespaceLabel are the labels the invoker puts on an action's pods.
const (
	ActionLabel    = "openwhisk/action"
	NamespaceLabel = "openwhisk/namespace"
)

// PodsConfig is where the action pods are: platform.options.pods_namespace (the invokers' Kubernetes namespace;
// giving it turns the sampling on) and platform.options.prometheus_url; the cluster is Config.Kube, the spec's
// platform.kubeconfig and platform.context, which the servers use too.
type PodsConfig struct {
	Namespace     string
	PrometheusURL string
}

// podsOptions are the options parsePods reads (config.go skips them).
var podsOptions = []string{"pods_namespace", "prometheus_url"}

// parsePods reads the pods' options from opts (nil when pods_namespace is not given; prometheus_url alone is
// refused, naming it). Errors name the option.
func parsePods(opts map[string]any) (*PodsConfig, error) {
	got := map[string]string{}
	for _, k := range podsOptions {
		if v, ok := opts[k]; ok {
			s, err := platform.OptionString(k, v)
			if err != nil {
				return nil, err
			}
			got[k] = s
		}
	}
	ns, on := got["pods_namespace"]
	if !on {
		if _, ok := got["prometheus_url"]; ok {
			return nil, fmt.Errorf("platform.options.prometheus_url: only used to sample the action pods, which needs platform.options.pods_namespace (the invokers' namespace, e.g. openwhisk)")
		}
		return nil, nil
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return nil, fmt.Errorf("platform.options.pods_namespace: %q is not a namespace name: %s", ns, strings.Join(errs, "; "))
	}
	return &PodsConfig{Namespace: ns, PrometheusURL: got["prometheus_url"]}, nil
}

// podsKube is the connection to the action pods: the spec's cluster, in the invokers' namespace.
func (c Config) podsKube() kube.Options {
	o := c.Kube
	o.Namespace = c.Pods.Namespace
	return o
}

// ActionSelector is the label selector of the pods the invoker initialised for action in namespace (an
// action's own namespace; "_", the key's default namespace, is left out: the label holds the resolved name).
// An action or namespace that cannot be a label value cannot have been labelled: the error says so.
func ActionSelector(namespace, action string) (string, error) {
	labels := [][2]string{{ActionLabel, action}}
	if namespace != "_" {
		labels = append(labels, [2]string{NamespaceLabel, namespace})
	}
	var sel []string
	for _, l := range labels {
		if errs := validation.IsValidLabelValue(l[1]); len(errs) > 0 {
			return "", fmt.Errorf("%q cannot be a label value, so the invoker cannot label its pods with it: %s", l[1], strings.Join(errs, "; "))
		}
		sel = append(sel, l[0]+"="+l[1])
	}
	return strings.Join(sel, ","), nil
}

// podSampler is what the adapter asks of the pods' cluster (kube.Sampler): an action's containers, and the
// pods of a namespace selected by labels (OpenWhisk's own, components.go).
type podSampler interface {
	platform.ResourceSampler
	SampleNamespace(ctx context.Context, namespace, selector string) ([]platform.ComponentUsage, error)
}

// openPods connects to the action pods' cluster and picks its usage source (kube.Cluster.NewSampler); nil
// without platform.options.pods_namespace. Warnings (a coarse source, or none) are for the run's record.
func openPods(ctx context.Context, c Config) (podSampler, []string, error) {
	if c.Pods == nil {
		return nil, nil, nil
	}
	cl, err := kube.Connect(c.podsKube())
	if err != nil {
		return nil, nil, fmt.Errorf("platform.options.pods_namespace: %w", err)
	}
	if _, err := cl.Client.CoreV1().Pods(cl.Namespace).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		return nil, nil, fmt.Errorf("platform.options.pods_namespace: the action pods' namespace %s on %s: %w", cl.Namespace, cl.Source, err)
	}
	s, warns, err := cl.NewSampler(kube.SamplerOptions{PrometheusURL: c.Pods.PrometheusURL, SelectorOf: func(action string) string {
		sel, err := ActionSelector(c.Namespace, action)
		if err != nil {
			return ActionLabel + "=" // selects nothing: the action cannot have been labelled
		}
		return sel
	}})
	if err != nil {
		return nil, warns, fmt.Errorf("platform.options.pods_namespace: %w", err)
	}
	if s == nil {
		return nil, warns, nil // no source: a nil *kube.Sampler would be a non-nil ResourceSampler
	}
	return s, warns, nil
}

// errNoPods says why an action's containers are not sampled.
var errNoPods = errors.New("OpenWhisk's API says nothing of its containers: give platform.options.pods_namespace (the invokers' Kubernetes namespace, e.g. openwhisk) to sample their CPU and memory")

// SampleResources implements platform.ResourceSampler: the CPU and memory of the pods the invoker labelled
// with the action (the containers that have served it, warm or busy), or of a server's pods (servers.go).
func (p *Platform) SampleResources(ctx context.Context, name string) (platform.FunctionUsage, error) {
	if p.srv.is(name) {
		return p.srv.sample(ctx, name)
	}
	if p.pods == nil {
		return platform.FunctionUsage{}, errNoPods
	}
	if _, err := ActionSelector(p.cfg.Namespace, name); err != nil {
		return platform.FunctionUsage{}, fmt.Errorf("action %s: %w", name, err)
	}
	return p.pods.SampleResources(ctx, name)
}
