package runner

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/faasbench/faasbench/distrib"
	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/platform/kube"
)

// driver is what sends the cells' load: this process, or, with
// load.generators, several generator processes whose results are merged
// exactly (package distrib): child processes of this one, or a Kubernetes
// Indexed Job of agent pods on the platform's cluster (opts: the
// platform's options, for its kubeconfig, context and namespace).
func (r *Run) driver(opts map[string]any) (experiment.Driver, error) {
	g := r.sp.Load.Generators
	if g == nil || (g.Count <= 1 && g.Where != "kubernetes") {
		return experiment.LocalDriver{}, nil
	}
	if g.Where != "kubernetes" {
		return distrib.Driver{Launch: func(ctx context.Context, allow []string) (*distrib.Coordinator, error) {
			return distrib.Local{N: g.Count, CPUs: r.genCPUs, Allow: allow, RunID: r.m.RunID, Stderr: r.o.Messages}.Start(ctx)
		}}, nil
	}
	ko := kube.Options{}
	for k, dst := range map[string]*string{"kubeconfig": &ko.Kubeconfig, "context": &ko.Context, "namespace": &ko.Namespace} {
		if s, ok := opts[k].(string); ok {
			*dst = s
		}
	}
	cl, err := kube.Connect(ko)
	if err != nil {
		return nil, fmt.Errorf("load.generators: %w", err)
	}
	res := corev1.ResourceRequirements{}
	for name, q := range map[corev1.ResourceName]string{corev1.ResourceCPU: g.CPU, corev1.ResourceMemory: g.Memory} {
		if q == "" {
			continue
		}
		v, err := resource.ParseQuantity(q)
		if err != nil {
			return nil, fmt.Errorf("load.generators.%s: %w", strings.ToLower(string(name)), err)
		}
		if res.Requests == nil {
			res.Requests, res.Limits = corev1.ResourceList{}, corev1.ResourceList{}
		}
		res.Requests[name], res.Limits[name] = v, v
	}
	pull := corev1.PullPolicy(g.PullPolicy)
	if pull == "" {
		pull = corev1.PullIfNotPresent
	}
	return distrib.Driver{Launch: func(ctx context.Context, allow []string) (*distrib.Coordinator, error) {
		name, err := distrib.JobName()
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(r.o.Messages, "starting %d load generators: Indexed Job %s/%s of %s\n", g.Count, cl.Namespace, name, g.Image)
		return distrib.Kube{Cluster: cl, Name: name, N: g.Count, Image: g.Image, PullPolicy: pull, Resources: res,
			NodeSelector: g.NodeSelector, Allow: allow, RunID: kube.LabelValue(r.m.RunID), StartTimeout: g.StartTimeout.D(),
			RequireAll: g.OnMissing == "fail"}.Start(ctx)
	}}, nil
}
