package cli

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/internal/fileutil"
	"github.com/faasbench/faasbench/report"
)

func (a *app) historyCmd() *cobra.Command {
	var metricNames []string
	var csvOut, parquetOut, svgDir string
	cmd := &cobra.Command{
		Use:   "history RUN_DIR...",
		Short: "Many runs in one table, in order of their start: each cell's figures per run, changes flagged",
		Long: `Put many run directories into one table (a row per run, cell key and metric: the repetitions'
median and the 95 % t interval of their mean), the runs in order of their start, and flag each change
from a key's previous run whose interval does not overlap it (better or worse, as Horreum does). The
table goes to stdout (or as JSON with -o json), and with --csv or --parquet to a file (for DuckDB,
pandas or a spreadsheet); --svg DIR draws a chart per metric, a line per key across the runs.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			metrics, err := report.MetricsNamed(metricNames)
			if err != nil {
				return usageErr("%v", err)
			}
			runs := make([]report.Run, 0, len(args))
			for _, d := range args {
				r, err := report.Load(d)
				if err != nil {
					return usageErr("%s: %v", d, err)
				}
				runs = append(runs, r)
			}
			rows := report.History(runs, metrics)
			if csvOut != "" {
				if err := fileutil.WriteAtomic(csvOut, func(w io.Writer) error { return historyCSV(w, rows) }); err != nil {
					return err
				}
			}
			if parquetOut != "" {
				if err := fileutil.WriteAtomic(parquetOut, func(w io.Writer) error {
					pw := parquet.NewGenericWriter[report.HistoryRow](w)
					if _, err := pw.Write(rows); err != nil {
						return err
					}
					return pw.Close()
				}); err != nil {
					return err
				}
			}
			if svgDir != "" {
				if err := os.MkdirAll(svgDir, 0o755); err != nil {
					return fmt.Errorf("--svg: %w", err)
				}
				for name, c := range report.HistoryCharts(rows, metrics) {
					if err := os.WriteFile(filepath.Join(svgDir, "history-"+name+".svg"), []byte(c.SVG()), 0o644); err != nil {
						return fmt.Errorf("--svg: %w", err)
					}
				}
			}
			if a.json() {
				return a.emit(rows, "")
			}
			return historyText(a.env.Stdout, rows)
		},
	}
	cmd.Flags().StringSliceVar(&metricNames, "metric", []string{"throughput", "p50", "p99", "error_rate"}, "metrics to put in the table: "+strings.Join(report.CellMetricNames(), ", "))
	cmd.Flags().StringVar(&csvOut, "csv", "", "also write the table as CSV to this file")
	cmd.Flags().StringVar(&parquetOut, "parquet", "", "also write the table as Parquet to this file")
	cmd.Flags().StringVar(&svgDir, "svg", "", "draw a chart per metric (history-METRIC.svg) into this directory")
	return cmd
}

// writeFile writes a file whole through write, or says which file failed.
var historyHeader = []string{"run", "start", "commit", "platform", "key", "metric", "reps", "median", "lo", "hi", "change"}

func historyRecord(r report.HistoryRow) []string {
	opt := func(p *float64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatFloat(*p, 'g', 6, 64)
	}
	return []string{r.Run, r.Start.UTC().Format("2006-01-02T15:04:05Z"), r.Commit, r.Platform, r.Key, r.Metric,
		strconv.Itoa(r.Reps), strconv.FormatFloat(r.Median, 'g', 6, 64), opt(r.Lo), opt(r.Hi), r.Change}
}

func historyCSV(w io.Writer, rows []report.HistoryRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(historyHeader); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write(historyRecord(r)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// historyText is the table for people: the changes first, then every row.
func historyText(w io.Writer, rows []report.HistoryRow) error {
	var changes []string
	for _, r := range rows {
		if r.Change == "better" || r.Change == "worse" {
			changes = append(changes, fmt.Sprintf("  %s %s in %s: %s (median %.4g [%s])", r.Key, r.Metric, r.Run, strings.ToUpper(r.Change), r.Median, interval(r)))
		}
	}
	fmt.Fprintf(w, "%d changes whose intervals do not overlap the key's previous run:\n%s\n\n", len(changes), strings.Join(changes, "\n"))
	fmt.Fprintf(w, "%-36s %-20s %-30s %-12s %5s %12s %23s  %s\n", "run", "start", "key", "metric", "reps", "median", "95% interval (mean)", "change")
	for _, r := range rows {
		fmt.Fprintf(w, "%-36s %-20s %-30s %-12s %5d %12.4g %23s  %s\n", r.Run, r.Start.UTC().Format("2006-01-02 15:04:05"), r.Key, r.Metric, r.Reps, r.Median, interval(r), r.Change)
	}
	return nil
}

func interval(r report.HistoryRow) string {
	if r.Lo == nil || r.Hi == nil {
		return "-"
	}
	return fmt.Sprintf("%.4g–%.4g", *r.Lo, *r.Hi)
}
