package cli

import (
	"context"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/baseline"
	"github.com/faasbench/faasbench/platform/fission"
	"github.com/faasbench/faasbench/platform/knative"
	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kubeless"
	"github.com/faasbench/faasbench/platform/nuclio"
	"github.com/faasbench/faasbench/platform/openfaas"
)

// clusterFlags select a Kubernetes cluster on the command line; they win
// over the spec's platform section.
type clusterFlags struct {
	kubeconfig, context, namespace string
}

func (f *clusterFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of a Kubernetes platform's cluster (default: platform.kubeconfig, $KUBECONFIG, ~/.kube/config, in-cluster)")
	cmd.Flags().StringVar(&f.context, "context", "", "kubeconfig context (default: platform.context, then the current context)")
	cmd.Flags().StringVarP(&f.namespace, "namespace", "n", "", "namespace for the functions (default: platform.namespace, then the context's)")
}

// flagOptions are the platform options the flags set (a run merges them
// over the spec's: runner.Options.PlatformOptions).
func (f clusterFlags) flagOptions() map[string]any {
	o := map[string]any{}
	for _, kv := range [][2]string{{"kubeconfig", f.kubeconfig}, {"context", f.context}, {"namespace", f.namespace}} {
		if kv[1] != "" {
			o[kv[0]] = kv[1]
		}
	}
	return o
}

// kubePlatform is what the CLI knows of each Kubernetes platform: how to
// make it, what it needs of a cluster, and its own object kinds (for
// cleaning up leftovers).
type kubePlatform struct {
	factory platform.Factory
	// requirements for the preflight; kinds: its resources beyond the core ones.
	requirements func() kube.Requirements
	kinds        []schema.GroupVersionResource
}

// factory turns an adapter's constructor into a platform.Factory.
func factory[P platform.Platform](newP func(context.Context, platform.Config) (P, error)) platform.Factory {
	return func(ctx context.Context, cfg platform.Config) (platform.Platform, error) {
		p, err := newP(ctx, cfg)
		if err != nil {
			return nil, err // not a typed nil inside the interface
		}
		return p, nil
	}
}

func kubePlatforms() map[string]kubePlatform {
	return map[string]kubePlatform{
		baseline.Name: {
			factory:      factory(baseline.New),
			requirements: baseline.Requirements,
		},
		nuclio.Name: {
			factory:      factory(nuclio.New),
			requirements: nuclio.Requirements,
			kinds:        nuclio.Kinds(),
		},
		openfaas.Name: {
			factory:      factory(openfaas.New),
			requirements: openfaas.Requirements,
		},
		fission.Name: {
			factory:      factory(fission.New),
			requirements: fission.Requirements,
			kinds:        fission.Kinds(),
		},
		knative.Name: {
			factory:      factory(knative.New),
			requirements: knative.Requirements,
			kinds:        knative.Kinds(),
		},
		kubeless.Name: {
			factory:      factory(kubeless.New),
			requirements: kubeless.Requirements,
			kinds:        kubeless.Kinds(),
		},
	}
}
