package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/internal/fileutil"
	"github.com/faasbench/faasbench/results"
)

func (a *app) exportCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "export RUN_DIR",
		Short: "Write a run's figures as CSV for spreadsheets: cells.csv and windows.csv",
		Long: `Write RUN_DIR's figures as CSV: cells.csv (one row per cell: requests by fate, throughput,
latency percentiles in ms (empty when the cell had too few samples), errors by class) and
windows.csv (one row per cell and second). Per-request records are Parquet already (records/).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := results.Open(args[0])
			if err != nil {
				return withCode(ExitUsage, err)
			}
			var s results.Summary
			if err := d.ReadJSON("summary.json", &s); err != nil {
				return err
			}
			if out == "" {
				out = d.Path
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			written := []string{}
			for name, write := range map[string]func(io.Writer) error{
				"cells.csv":   func(w io.Writer) error { return results.WriteCellsCSV(w, s) },
				"windows.csv": func(w io.Writer) error { return results.WriteWindowsCSV(w, s) },
			} {
				path := filepath.Join(out, name)
				if err := fileutil.WriteAtomic(path, write); err != nil {
					return fmt.Errorf("export: %w", err)
				}
				written = append(written, path)
			}
			return a.emit(written, fmt.Sprintf("wrote %v\n", written))
		},
	}
	cmd.Flags().StringVarP(&out, "out", "O", "", "directory for the CSV files (default: the run directory)")
	return cmd
}
