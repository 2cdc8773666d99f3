package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/packaging"
	"github.com/faasbench/faasbench/workloads"
)

// lookupWorkload finds the catalogue (dir, or the default places) and checks that it has the
// workload in lang; it returns the catalogue's directory. Errors name the argument or flag.
func lookupWorkload(dir, name, lang string) (string, error) {
	root, err := workloads.FindRoot(dir)
	if err != nil {
		return "", withCode(ExitUsage, err)
	}
	cat, err := workloads.Load(root)
	if err != nil {
		return "", err
	}
	wl, ok := cat.Get(name)
	if !ok {
		return "", usageErr("workload %q: unknown (one of %s)", name, strings.Join(cat.Names(), ", "))
	}
	if !slices.Contains(wl.Languages, lang) {
		return "", usageErr("--lang: workload %s has no %q (one of %s)", name, lang, strings.Join(wl.Languages, ", "))
	}
	return root, nil
}

func (a *app) workloadCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "workload", Short: "Workloads: render what deploys one on a platform by hand"}
	var plat, lang, name, out, dir string
	var replicas, workers, concurrency int
	var sets, opts []string
	pkg := &cobra.Command{
		Use:   "package WORKLOAD --platform P --lang L",
		Short: "Render a workload's deployment for a platform (Kubernetes YAML, a faas-cli stack.yml, an OpenWhisk action body)",
		Long: `Render what deploys WORKLOAD's image on a platform by hand, from the same builders faasbench
deploys with: Kubernetes YAML for baseline, knative, nuclio and fission (kubectl apply -f), a
faas-cli stack.yml for openfaas, the action's JSON body for openwhisk. Function settings with
--set key=value (the platform's settings, docs/platforms/<name>.md), platform options with
--option key=value (namespace, image_prefix, image_tag, ...).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := lookupWorkload(dir, args[0], lang)
			if err != nil {
				return err
			}
			fn := platform.Function{Name: name, Workload: args[0], Language: lang, Replicas: replicas, Workers: workers, Concurrency: concurrency, Settings: map[string]string{}}
			if fn.Name == "" {
				fn.Name = args[0] + "-" + lang
			}
			for _, kv := range sets {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return usageErr("--set: %q is not key=value", kv)
				}
				fn.Settings[k] = v
			}
			o := packaging.Options{}
			for _, kv := range opts {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return usageErr("--option: %q is not key=value", kv)
				}
				o[k] = v
			}
			b, err := packaging.Render(plat, fn, o, root)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			if out == "" {
				_, err = a.env.Stdout.Write(b)
				return err
			}
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(out, b, 0o644); err != nil {
				return fmt.Errorf("-O: %w", err)
			}
			fmt.Fprintf(a.env.Stdout, "wrote %s\n", out)
			return nil
		},
	}
	f := pkg.Flags()
	f.StringVarP(&plat, "platform", "p", "", "the platform ("+strings.Join(packaging.Platforms(), ", ")+")")
	f.StringVarP(&lang, "lang", "l", "", "the language of the implementation")
	f.StringVar(&name, "name", "", "the function's name (default <workload>-<lang>)")
	f.IntVar(&replicas, "replicas", 1, "replicas (where the platform has a count)")
	f.IntVar(&workers, "workers", 0, "workers per instance")
	f.IntVar(&concurrency, "concurrency", 0, "per-instance concurrency limit")
	f.StringArrayVar(&sets, "set", nil, "a function setting key=value (repeatable)")
	f.StringArrayVar(&opts, "option", nil, "a platform option key=value (repeatable)")
	f.StringVarP(&out, "output-file", "O", "", "write to this file instead of stdout")
	f.StringVar(&dir, "workloads", "", "workload catalogue directory")
	_ = pkg.MarkFlagRequired("platform")
	_ = pkg.MarkFlagRequired("lang")
	cmd.AddCommand(pkg, a.workloadImageCmd())
	return cmd
}
