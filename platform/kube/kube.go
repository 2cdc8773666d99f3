// Package kube holds what every Kubernetes adapter shares: a client from a
// kubeconfig, the labels faasbench puts on what it creates, cleanup by
// label, the replica timeline from watches, resource usage from the
// metrics API or Prometheus, the cluster fingerprint and preflight checks.
package kube

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Options say which cluster and namespace to use.
type Options struct {
	// Kubeconfig is a kubeconfig file; empty: $KUBECONFIG, then
	// ~/.kube/config, then the in-cluster service account.
	Kubeconfig string
	// Context is a context of the kubeconfig; empty: its current context.
	Context string
	// Namespace is where functions go; empty: the context's namespace,
	// then "default".
	Namespace string
	// Timeout bounds every API request (0: 30 s).
	Timeout time.Duration
}

// Cluster is a connection to one cluster and namespace.
type Cluster struct {
	Config    *rest.Config
	Client    kubernetes.Interface
	Dynamic   dynamic.Interface
	Namespace string
	// Source says where the configuration came from (for messages).
	Source string
}

// Connect builds the clients. It does not contact the server: Check does.
func Connect(o Options) (*Cluster, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	source := "kubeconfig"
	if o.Kubeconfig != "" {
		if _, err := os.Stat(o.Kubeconfig); err != nil {
			return nil, fmt.Errorf("kubeconfig: %w", err)
		}
		rules.ExplicitPath = o.Kubeconfig
		source = o.Kubeconfig
	} else if env := os.Getenv("KUBECONFIG"); env != "" {
		source = "$KUBECONFIG (" + env + ")"
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.Context}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		// No kubeconfig at all: inside a pod, use the service account.
		if o.Kubeconfig == "" && o.Context == "" && clientcmd.IsEmptyConfig(err) {
			cfg, err = rest.InClusterConfig()
			source = "in-cluster service account"
		}
		if err != nil {
			if o.Context != "" {
				return nil, fmt.Errorf("kubeconfig (context %q): %w", o.Context, err)
			}
			return nil, fmt.Errorf("kubeconfig: no usable cluster configuration (set --kubeconfig, $KUBECONFIG or run in a pod): %w", err)
		}
	}
	ns := o.Namespace
	if ns == "" {
		if n, _, nerr := cc.Namespace(); nerr == nil && n != "" {
			ns = n
		} else {
			ns = "default"
		}
	}
	cfg.Timeout = o.Timeout
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	// The replica watcher and a run's cleanup make bursts of requests.
	cfg.QPS, cfg.Burst = 50, 100
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes dynamic client: %w", err)
	}
	return &Cluster{Config: cfg, Client: cs, Dynamic: dc, Namespace: ns, Source: source}, nil
}

// EnsureNamespace creates the namespace when it does not exist, labelled
// as faasbench's, and says whether it created it.
func (c *Cluster) EnsureNamespace(ctx context.Context, runID string) (bool, error) {
	_, err := c.Client.CoreV1().Namespaces().Get(ctx, c.Namespace, metav1.GetOptions{})
	if err == nil {
		return false, nil
	}
	if !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("namespace %s: %w", c.Namespace, err)
	}
	ns := namespaceObject(c.Namespace, runID)
	if _, err := c.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return false, fmt.Errorf("create namespace %s: %w", c.Namespace, err)
	}
	return true, nil
}

// ErrTimeout is wrapped by waits that ran out of time.
var ErrTimeout = errors.New("timed out")
