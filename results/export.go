package results

import (
	"encoding/csv"
	"io"
	"strconv"
)

// CellsCSVHeader names the columns of WriteCellsCSV. Times are in ms,
// rates in requests per second; an empty percentile had too few samples.
var CellsCSVHeader = []string{"run_id", "cell", "key", "function", "workload", "language", "platform", "model",
	"concurrency", "rate_rps", "repetition", "replicas", "valid", "interrupted", "elapsed_s", "requests", "succeeded",
	"failed", "aborted", "throughput_rps", "offered_rps", "sent_rps", "p50_ms", "p90_ms", "p99_ms", "max_ms", "mean_ms",
	"all_p50_ms", "all_p99_ms", "handler_p50_ms", "overhead_p50_ms", "lag_p99_ms", "cold_starts", "errors"}

// WindowsCSVHeader names the columns of WriteWindowsCSV.
var WindowsCSVHeader = []string{"run_id", "cell", "second", "offered", "sent", "in_flight", "completed", "succeeded",
	"failed", "p50_ms", "p99_ms", "max_ms", "generator_cpu", "steal", "errors"}

func f(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func fp(v *float64) string {
	if v == nil {
		return ""
	}
	return f(*v)
}

// classes writes counts by class as "class=n;class=n", sorted.
func classes(m map[string]int64) string { return FormatCounts(m, ";") }

// WriteCellsCSV writes one row per cell.
func WriteCellsCSV(w io.Writer, s Summary) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CellsCSVHeader); err != nil {
		return err
	}
	for _, c := range s.Cells {
		row := []string{s.RunID, c.ID, c.Key, c.Function, c.Workload, c.Language, c.Platform, c.Model,
			strconv.Itoa(c.Concurrency), f(c.Rate), strconv.Itoa(c.Repetition), strconv.Itoa(c.Replicas),
			strconv.FormatBool(c.Valid), strconv.FormatBool(c.Interrupted), f(c.ElapsedS),
			strconv.FormatInt(c.Requests.Total, 10), strconv.FormatInt(c.Requests.Succeeded, 10),
			strconv.FormatInt(c.Requests.Failed, 10), strconv.FormatInt(c.Requests.Aborted, 10),
			f(c.ThroughputRPS), f(c.OfferedRPS), f(c.SentRPS),
			fp(c.SuccessLatencyMs.P50), fp(c.SuccessLatencyMs.P90), fp(c.SuccessLatencyMs.P99), f(c.SuccessLatencyMs.Max), f(c.SuccessLatencyMs.Mean),
			fp(c.LatencyMs.P50), fp(c.LatencyMs.P99), fp(c.HandlerMs.P50), fp(c.OverheadMs.P50), fp(c.GeneratorLagMs.P99),
			strconv.FormatInt(c.ColdStarts, 10), classes(c.Errors)}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteWindowsCSV writes one row per cell and second.
func WriteWindowsCSV(w io.Writer, s Summary) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(WindowsCSVHeader); err != nil {
		return err
	}
	for _, c := range s.Cells {
		for _, win := range c.Windows {
			row := []string{s.RunID, c.ID, strconv.Itoa(win.Second), strconv.FormatInt(win.Offered, 10),
				strconv.FormatInt(win.Sent, 10), strconv.FormatInt(win.InFlight, 10), strconv.FormatInt(win.Completed, 10),
				strconv.FormatInt(win.Succeeded, 10), strconv.FormatInt(win.Failed, 10), fp(win.P50Ms), fp(win.P99Ms), fp(win.MaxMs),
				f(win.GeneratorCPU), f(win.Steal), classes(win.Errors)}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
