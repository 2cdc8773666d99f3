package local

import (
	"context"

	"github.com/faasbench/faasbench/platform"
)

// Factory makes the local platform for a run: it starts the daemon with
// command (faasbench's own "platform local serve", e.g. [/path/to/faasbench
// platform local serve]) and the run's ID, catalogue and work directory,
// pinned to the CPUs in the option "cpus" ([]int, the runner's split).
func Factory(command []string) platform.Factory {
	return func(ctx context.Context, cfg platform.Config) (platform.Platform, error) {
		cpus, _ := cfg.Options["cpus"].([]int)
		p, err := Start(ctx, StartConfig{Command: command, RunID: cfg.RunID, Workloads: cfg.WorkloadsDir, WorkDir: cfg.WorkDir, CPUs: cpus})
		if err != nil {
			return nil, err // not a typed nil inside the interface
		}
		return p, nil
	}
}
