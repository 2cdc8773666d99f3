package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/distrib"
)

// agentCmd is faasbench agent: one of a run's load generators, speaking the
// coordinator's protocol on stdin and stdout (package distrib). It listens
// on nothing; its token is read from --token-file. Its flags (--index,
// --allow, --cpus, --token-file) are parsed by distrib.RunAgent: a coordinator starts it,
// never a person.
func (a *app) agentCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "agent --index N --allow ORIGIN --token-file PATH [--cpus LIST]",
		Short:              "Run as one of a run's load generators, driven by its coordinator over stdin and stdout (load.generators)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			err := distrib.RunAgent(cmd.Context(), args, a.env.Stdin, a.env.Stdout)
			if errors.Is(err, distrib.ErrUsage) {
				return usageErr("%v", err)
			}
			return err
		},
	}
}
