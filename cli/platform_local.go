package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/internal/affinity"
	"github.com/faasbench/faasbench/internal/reaper"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/local"
	"github.com/faasbench/faasbench/runner"
	"github.com/faasbench/faasbench/workloads"
)

// localCmds are platform local up|down|status|deploy|scale|remove|logs.
func (a *app) localCmds(parent *cobra.Command) {
	var stateDir string
	parent.PersistentFlags().StringVar(&stateDir, "state", "", "directory of the running daemon's state (default: the user cache directory's faasbench/local)")
	statePath := func() (string, error) {
		if stateDir == "" {
			c, err := os.UserCacheDir()
			if err != nil {
				return "", err
			}
			stateDir = filepath.Join(c, "faasbench", "local")
		}
		return filepath.Join(stateDir, "state.json"), nil
	}
	connect := func() (*local.Platform, local.State, error) {
		path, err := statePath()
		if err != nil {
			return nil, local.State{}, err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, local.State{}, usageErr("no local platform is up (%s): run faasbench platform local up", path)
		}
		var st local.State
		if err := json.Unmarshal(b, &st); err != nil {
			return nil, st, fmt.Errorf("state %s: %w", path, err)
		}
		return local.Connect(st), st, nil
	}

	var workloadsDir, cpus, listen string
	up := &cobra.Command{
		Use:   "up",
		Short: "Start the local platform as a daemon (external tools can then call its gateway)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := statePath()
			if err != nil {
				return err
			}
			if b, err := os.ReadFile(path); err == nil {
				var st local.State
				if json.Unmarshal(b, &st) == nil && reaper.Alive(st.PID) {
					return usageErr("a local platform is already up at %s (pid %d): faasbench platform local down", st.Gateway, st.PID)
				}
			}
			root, err := workloads.FindRoot(workloadsDir)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			var cpuList []int
			if cpus != "" {
				if cpuList, err = affinity.Parse(cpus); err != nil {
					return usageErr("--cpus: %v", err)
				}
			}
			runID := runner.NewRunID("local", time.Now())
			p, err := local.Start(cmd.Context(), local.StartConfig{Command: []string{a.env.Executable, "platform", "local", "serve"},
				RunID: runID, Workloads: root, WorkDir: filepath.Join(filepath.Dir(path), runID), CPUs: cpuList, Listen: listen, Detached: true})
			if err != nil {
				return err
			}
			st := p.State()
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return err
			}
			b, _ := json.MarshalIndent(st, "", "  ")
			if err := os.WriteFile(path, b, 0o600); err != nil {
				return err
			}
			return a.emit(st, fmt.Sprintf("local platform up: gateway %s (pid %d)\ninvoke: %s/function/<name>\n", st.Gateway, st.PID, st.Gateway))
		},
	}
	up.Flags().StringVar(&workloadsDir, "workloads", "", "workload catalogue directory")
	up.Flags().StringVar(&cpus, "cpus", "", "CPU list to pin the platform and its instances to")
	up.Flags().StringVar(&listen, "listen", "", "gateway address (default 127.0.0.1 and a free port)")

	down := &cobra.Command{
		Use:   "down",
		Short: "Stop the local platform daemon and every instance",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, st, err := connect()
			if err != nil {
				return err
			}
			err = p.Close(cmd.Context())
			path, _ := statePath()
			_ = os.Remove(path)
			if err != nil {
				return err
			}
			return a.emit(map[string]any{"stopped": st.PID}, fmt.Sprintf("local platform down (pid %d)\n", st.PID))
		},
	}

	status := &cobra.Command{
		Use:   "status",
		Short: "Show the deployed functions, their instances and resource use",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, st, err := connect()
			if err != nil {
				return err
			}
			fns, err := p.Functions(cmd.Context())
			if err != nil {
				return err
			}
			var b strings.Builder
			fmt.Fprintf(&b, "gateway %s (pid %d)\n", st.Gateway, st.PID)
			for _, f := range fns {
				fmt.Fprintf(&b, "%s: %s/%s, %d/%d ready, %d restarts, %d OOM kills\n", f.Name, f.Workload, f.Language, f.Ready, f.Replicas, f.Restarts, f.OOMKills)
				for _, in := range f.Instances {
					fmt.Fprintf(&b, "  %-24s pid %-7d %s  in flight %d", in.ID, in.PID, in.Addr, in.Inflight)
					if in.Usage != nil {
						fmt.Fprintf(&b, "  cpu %.2fs  mem %.1f MiB", float64(in.Usage.CPUNs)/1e9, float64(in.Usage.MemoryBytes)/(1<<20))
					}
					b.WriteString("\n")
				}
				for _, w := range f.Warnings {
					fmt.Fprintf(&b, "  warning: %s\n", w)
				}
			}
			return a.emit(fns, b.String())
		},
	}

	var fn platform.Function
	var sets, envs []string
	deploy := &cobra.Command{
		Use:   "deploy WORKLOAD",
		Short: "Deploy a workload on the running local platform",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, st, err := connect()
			if err != nil {
				return err
			}
			fn.Workload = args[0]
			if fn.Name == "" {
				fn.Name = fn.Workload + "-" + fn.Language
			}
			fn.Settings = map[string]string{}
			for _, kv := range sets {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return usageErr("--set %q: want KEY=VALUE", kv)
				}
				fn.Settings[k] = v
			}
			fn.Env = map[string]string{}
			for _, kv := range envs {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return usageErr("--env %q: want KEY=VALUE", kv)
				}
				fn.Env[k] = v
			}
			if err := p.Deploy(cmd.Context(), fn); err != nil {
				return withCode(ExitUsage, err)
			}
			url, _ := p.Endpoint(cmd.Context(), fn.Name)
			return a.emit(map[string]string{"name": fn.Name, "url": url}, fmt.Sprintf("deployed %s: %s (gateway %s)\n", fn.Name, url, st.Gateway))
		},
	}
	df := deploy.Flags()
	df.StringVar(&fn.Language, "lang", "python", "implementation language")
	df.StringVar(&fn.Name, "name", "", "function name (default WORKLOAD-LANG)")
	df.IntVar(&fn.Replicas, "replicas", 1, "instances to start")
	df.StringVar(&fn.Mode, "mode", "", "http (persistent process) or fork (a process per request)")
	df.IntVar(&fn.Workers, "workers", 0, "worker processes per instance (python)")
	df.IntVar(&fn.Concurrency, "concurrency", 0, "per-instance concurrency limit (0: none)")
	df.Int64Var(&fn.MemoryMB, "memory-mb", 0, "memory limit per instance in MB (cgroups)")
	df.Float64Var(&fn.CPUs, "cpus", 0, "CPU limit per instance in cores (cgroups)")
	df.StringArrayVar(&envs, "env", nil, "environment variable KEY=VALUE for the function's instances (e.g. FB_UPSTREAM_URL, FB_DB_PASSWORD)")
	df.StringArrayVar(&sets, "set", nil, "platform setting KEY=VALUE (routing: round-robin, least-outstanding, pinned or sharding; rebalance, queue, queue_size, queue_timeout, timeout, scale_to_zero_after, cold_start_timeout, autoscale, min, max, target, stable_window, panic_window, panic_threshold, max_scale_up_rate, scale_interval, step_percent)")

	scale := &cobra.Command{
		Use:   "scale NAME REPLICAS",
		Short: "Set a function's replica count",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var n int
			if _, err := fmt.Sscanf(args[1], "%d", &n); err != nil || n < 0 {
				return usageErr("REPLICAS %q: want a whole number ≥ 0", args[1])
			}
			p, _, err := connect()
			if err != nil {
				return err
			}
			if err := p.Scale(cmd.Context(), args[0], n); err != nil {
				return err
			}
			return a.emit(map[string]any{"name": args[0], "replicas": n}, fmt.Sprintf("%s scaled to %d\n", args[0], n))
		},
	}
	remove := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a function and its instances",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, _, err := connect()
			if err != nil {
				return err
			}
			if err := p.Remove(cmd.Context(), args[0]); err != nil {
				return err
			}
			return a.emit(map[string]string{"removed": args[0]}, fmt.Sprintf("removed %s\n", args[0]))
		},
	}
	var lines int
	logs := &cobra.Command{
		Use:   "logs NAME",
		Short: "Print the last lines of a function's instance logs",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, st, err := connect()
			if err != nil {
				return err
			}
			files, _ := filepath.Glob(filepath.Join(st.WorkDir, "logs", args[0]+"-*.log"))
			if len(files) == 0 {
				return usageErr("no logs for %q in %s", args[0], filepath.Join(st.WorkDir, "logs"))
			}
			sort.Strings(files)
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					return err
				}
				ls := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
				if len(ls) > lines {
					ls = ls[len(ls)-lines:]
				}
				fmt.Fprintf(a.env.Stdout, "==> %s <==\n%s\n", filepath.Base(f), strings.Join(ls, "\n"))
			}
			return nil
		},
	}
	logs.Flags().IntVarP(&lines, "lines", "n", 50, "lines per instance")
	coldRate := a.localColdRateCmd(func() (platform.Platform, error) {
		p, _, err := connect()
		if err != nil {
			return nil, err
		}
		return p, nil
	})
	parent.AddCommand(up, down, status, deploy, scale, remove, logs, coldRate)
}

// emit prints v as JSON with --output json, else text.
func (a *app) emit(v any, text string) error {
	if a.json() {
		return json.NewEncoder(a.env.Stdout).Encode(v)
	}
	_, err := fmt.Fprint(a.env.Stdout, text)
	return err
}
