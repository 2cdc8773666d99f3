package openwhisk

import (
	"context"

	"github.com/faasbench/faasbench/platform"
)

// OpenWhisk's own footprint. With platform.options.pods_namespace the invokers' namespace is known, and in it
// OpenWhisk's own pods (the controller and invoker, one JVM in the standalone server; nginx in front; with
// deploy-kube also Kafka, CouchDB and the rest) beside the action containers, each of which the invoker's pod
// builder labels user-action-pod=true (WhiskPodBuilder.scala), prewarmed stem cells included. Every other pod
// of that namespace is a component: its CPU and memory idle and under load (the run's footprint and its
// components' timeline), where the containers alone left a run's CPU unexplained (seed 004 Fig 5.8).

// ComponentSelector selects OpenWhisk's own pods in the invokers' namespace: every pod that is not an action
// container.
const ComponentSelector = "!user-action-pod"

// WithComponents is the adapter with its components sampled (platform.ComponentSampler): what NewPlatform
// makes when platform.options.pods_namespace is given. Without it the adapter has no such capability, so
// a run does not wait for a footprint that cannot come.
type WithComponents struct{ *Platform }

var _ platform.ComponentSampler = (*WithComponents)(nil)

// NewPlatform is New as a platform.Factory: the adapter, with its components sampled when
// platform.options.pods_namespace is given.
func NewPlatform(ctx context.Context, pc platform.Config) (platform.Platform, error) {
	p, err := New(ctx, pc)
	if err != nil {
		return nil, err
	}
	if p.pods == nil {
		return p, nil
	}
	return &WithComponents{p}, nil
}

// SampleComponents implements platform.ComponentSampler: every pod of the invokers' namespace that is not an
// action container, named by its app label (openwhisk-standalone, openwhisk-nginx), from the kubelets.
func (w *WithComponents) SampleComponents(ctx context.Context) ([]platform.ComponentUsage, error) {
	if w.pods == nil {
		return nil, errNoPods
	}
	return w.pods.SampleNamespace(ctx, w.cfg.Pods.Namespace, ComponentSelector)
}
