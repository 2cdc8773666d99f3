package cli

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/local"
	"github.com/faasbench/faasbench/platform/openwhisk"
)

// kubeCmds adds the commands for Kubernetes platforms: check and clean.
func (a *app) kubeCmds(parent *cobra.Command) {
	var cf clusterFlags
	var name string
	check := &cobra.Command{
		Use:   "check --platform NAME",
		Short: "Preflight a platform: for a Kubernetes one, is it installed, which version, may we do what a run needs; for local, which cgroup mode this host gives and what works in it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if name == local.Name {
				return a.localCheck()
			}
			kp, cl, err := a.kubeTarget(name, cf)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
			defer cancel()
			r := cl.Check(ctx, kp.requirements())
			var b strings.Builder
			fmt.Fprintf(&b, "platform %s on %s (kubeconfig: %s), namespace %s, Kubernetes %s\n", name, r.Server, cl.Source, r.Namespace, orDash(r.Version))
			for _, p := range r.Problems {
				fmt.Fprintf(&b, "problem: %s\n", p)
			}
			for _, w := range r.Warnings {
				fmt.Fprintf(&b, "warning: %s\n", w)
			}
			if r.OK() {
				b.WriteString("ok: nothing stops a run\n")
			}
			if err := a.emit(r, b.String()); err != nil {
				return err
			}
			if !r.OK() {
				return fmt.Errorf("platform check: %d problem(s)", len(r.Problems))
			}
			return nil
		},
	}
	var runID, apiHost string
	var all bool
	clean := &cobra.Command{
		Use:   "clean --platform NAME [--run-id ID]",
		Short: "Delete what faasbench left in a cluster (everything it labelled, or one run's)",
		Long: `Delete every object faasbench created in the namespace (with --all-namespaces: in every
namespace), found by its label app.kubernetes.io/managed-by=faasbench, or only one run's
(--run-id, the run directory's manifest run_id), and the namespaces faasbench created for runs.
For --platform openwhisk, whose actions live behind its REST API: the actions faasbench made in the
namespace of the key in $FB_OPENWHISK_AUTH, at --api-host.
Runs clean up after themselves, also on Ctrl-C; this is for what a killed run left.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if name == openwhisk.Name {
				ctx, cancel := context.WithTimeout(cmd.Context(), 5*time.Minute)
				defer cancel()
				return a.openwhiskClean(ctx, apiHost, runID)
			}
			if apiHost != "" {
				return usageErr("--api-host: only for --platform openwhisk (a Kubernetes platform is found through the cluster flags)")
			}
			kp, cl, err := a.kubeTarget(name, cf)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 5*time.Minute)
			defer cancel()
			return a.clean(ctx, cl, kp, runID, all)
		},
	}
	for _, c := range []*cobra.Command{check, clean} {
		c.Flags().StringVarP(&name, "platform", "p", "", "the Kubernetes platform (see faasbench platform list)")
		cf.add(c)
	}
	clean.Flags().StringVar(&runID, "run-id", "", "only this run's objects")
	clean.Flags().BoolVarP(&all, "all-namespaces", "A", false, "look in every namespace")
	clean.Flags().StringVar(&apiHost, "api-host", "", "--platform openwhisk: the OpenWhisk API's URL (the key is $FB_OPENWHISK_AUTH)")
	parent.AddCommand(check, clean)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// kubeTarget resolves --platform and the cluster flags.
func (a *app) kubeTarget(name string, cf clusterFlags) (kubePlatform, *kube.Cluster, error) {
	kps := kubePlatforms()
	kp, ok := kps[name]
	if !ok {
		if name == local.Name {
			return kp, nil, usageErr("--platform local: the local platform needs no cluster (see faasbench platform local status)")
		}
		var names []string
		for n := range kps {
			names = append(names, n)
		}
		sort.Strings(names)
		return kp, nil, usageErr("--platform: %q is not a Kubernetes platform (one of %s)", name, strings.Join(names, ", "))
	}
	o := cf.flagOptions()
	str := func(k string) string { s, _ := o[k].(string); return s }
	cl, err := kube.Connect(kube.Options{Kubeconfig: str("kubeconfig"), Context: str("context"), Namespace: str("namespace")})
	if err != nil {
		return kp, nil, withCode(ExitUsage, err)
	}
	return kp, cl, nil
}

func (a *app) clean(ctx context.Context, cl *kube.Cluster, kp kubePlatform, runID string, all bool) error {
	sel := kube.Selector(kube.LabelValue(runID), "")
	ns := cl.Namespace
	if all {
		ns = ""
	}
	gone, err := cl.Clean(ctx, ns, sel, kp.kinds)
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	nss, lerr := cl.Client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: sel})
	if lerr != nil {
		errs = append(errs, fmt.Errorf("namespaces: %w", lerr))
	} else {
		for _, n := range nss.Items {
			if !all && n.Name != cl.Namespace {
				continue
			}
			if n.DeletionTimestamp != nil {
				continue
			}
			if err := cl.DeleteNamespace(ctx, n.Name); err != nil {
				errs = append(errs, err)
				continue
			}
			gone = append(gone, kube.Cleaned{Kind: "namespaces", Name: n.Name})
		}
	}
	var b strings.Builder
	for _, g := range gone {
		fmt.Fprintf(&b, "deleted %s\n", g)
	}
	where := "namespace " + cl.Namespace
	if all {
		where = "every namespace"
	}
	fmt.Fprintf(&b, "%d object(s) deleted in %s (selector %s)\n", len(gone), where, sel)
	if gone == nil {
		gone = []kube.Cleaned{}
	}
	if err := a.emit(gone, b.String()); err != nil {
		return err
	}
	return errors.Join(errs...)
}
