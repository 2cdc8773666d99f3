package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/report"
)

func (a *app) reportCmd() *cobra.Command {
	var out, format, figures string
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
			if figures != "" {
				files, note, err := report.WriteFigures(figures, runs)
				if err != nil {
					return err
				}
				fmt.Fprintf(a.env.Stderr, "%d figure files in %s\n", len(files), figures)
				if note != "" {
					fmt.Fprintln(a.env.Stderr, note)
				}
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
	cmd.Flags().StringVar(&figures, "figures", "", "also write every chart as SVG (and PNG, with rsvg-convert) files into this directory")
	cmd.Flags().StringVar(&format, "format", "html", "html (self-contained page with charts) or md (Markdown tables)")
	return cmd
}
