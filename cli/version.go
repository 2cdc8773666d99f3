package cli

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print faasbench's version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.json() {
				return json.NewEncoder(a.env.Stdout).Encode(map[string]string{"version": version, "commit": toolCommit(), "go": runtime.Version()})
			}
			fmt.Fprintf(a.env.Stdout, "faasbench %s (commit %s, %s)\n", version, toolCommit(), runtime.Version())
			return nil
		},
	}
}
