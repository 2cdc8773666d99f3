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
	"github.com/faasbench/faasbench/platform/nuclio"
	"github.com/faasbench/faasbench/platform/openfaas"
	"github.com/faasbench/faasbench/spec"
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

// options are the platform options of ps with the flags applied.
func (f clusterFlags) options(ps spec.PlatformSpec) map[string]any {
	o := map[string]any{}
	for k, v := range ps.Options {
		o[k] = v
	}
	for _, kv := range [][3]string{{"kubeconfig", f.kubeconfig, ps.Kubeconfig}, {"context", f.context, ps.Context}, {"namespace", f.namespace, ps.Namespace}} {
		if kv[1] != "" {
			o[kv[0]] = kv[1]
		} else if kv[2] != "" {
			o[kv[0]] = kv[2]
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

func kubePlatforms() map[string]kubePlatform {
	return map[string]kubePlatform{
		baseline.Name: {
			factory: func(ctx context.Context, cfg platform.Config) (platform.Platform, error) {
				return baseline.New(ctx, cfg)
			},
			requirements: baseline.Requirements,
		},
		nuclio.Name: {
			factory: func(ctx context.Context, cfg platform.Config) (platform.Platform, error) {
				return nuclio.New(ctx, cfg)
			},
			requirements: nuclio.Requirements,
			kinds:        nuclio.Kinds(),
		},
		openfaas.Name: {
			factory: func(ctx context.Context, cfg platform.Config) (platform.Platform, error) {
				return openfaas.New(ctx, cfg)
			},
			requirements: openfaas.Requirements,
		},
		fission.Name: {
			factory: func(ctx context.Context, cfg platform.Config) (platform.Platform, error) {
				return fission.New(ctx, cfg)
			},
			requirements: fission.Requirements,
			kinds:        fission.Kinds(),
		},
		knative.Name: {
			factory: func(ctx context.Context, cfg platform.Config) (platform.Platform, error) {
				return knative.New(ctx, cfg)
			},
			requirements: knative.Requirements,
			kinds:        knative.Kinds(),
		},
	}
}
