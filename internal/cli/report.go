package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/report"
)

func (a *app) reportCmd() *cobra.Command {
	var out, format string
	cmd := &cobra.Command{
		Use:   "report RUN_DIR...",
		Short: "Render one or more run directories as a report (several runs: side by side)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "html" && format != "md" {
				return usageErr("--format: %q is not html or md", format)
			}
			var runs []report.Run
			for _, d := range args {
				r, err := report.Load(d)
				if err != nil {
					return withCode(ExitUsage, err)
				}
				runs = append(runs, r)
			}
			w := a.env.Stdout
			if out != "" && out != "-" {
				f, err := os.Create(out)
				if err != nil {
					return fmt.Errorf("report: %w", err)
				}
				defer f.Close()
				w = f
			}
			if format == "md" {
				return report.Markdown(w, runs)
			}
			return report.HTML(w, runs)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "O", "-", "file to write (- for stdout)")
	cmd.Flags().StringVar(&format, "format", "html", "html (self-contained page with charts) or md (Markdown tables)")
	return cmd
}
