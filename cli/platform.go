package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/platform/local"
)

func (a *app) platformCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "platform", Short: "Platforms: list them, run the local one, check and clean a Kubernetes one"}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the platforms this faasbench can drive",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := a.registry()
			if err != nil {
				return err
			}
			if a.json() {
				return json.NewEncoder(a.env.Stdout).Encode(reg.Names())
			}
			for _, n := range reg.Names() {
				fmt.Fprintln(a.env.Stdout, n)
			}
			return nil
		},
	})
	localCmd := &cobra.Command{Use: "local", Short: "The embedded local platform"}
	localCmd.AddCommand(&cobra.Command{
		Use:                "serve [flags]",
		Short:              "Run the local platform daemon in the foreground (started by faasbench run)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return local.ServeMain(ctx, args, a.env.Stdin, a.env.Stderr)
		},
	})
	a.localCmds(localCmd)
	cmd.AddCommand(localCmd)
	a.kubeCmds(cmd)
	return cmd
}
