package livemetrics

import (
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/faasbench/faasbench/load"
)

var (
	runLabels  = []string{"run"}
	cellLabels = []string{"run", "cell", "function", "platform"}
	fnLabels   = []string{"run", "function", "platform"}

	descRunInfo   = prometheus.NewDesc("faasbench_run_info", "The run being measured (always 1).", []string{"run", "name", "platform"}, nil)
	descCells     = prometheus.NewDesc("faasbench_run_cells", "Cells in the run's plan.", runLabels, nil)
	descCellsDone = prometheus.NewDesc("faasbench_run_cells_done", "Cells measured and kept (or skipped on resume).", runLabels, nil)
	descRunReqs   = prometheus.NewDesc("faasbench_run_requests_total", "Completed requests of the run so far, by outcome class.", []string{"run", "class"}, nil)
	descCellReqs  = prometheus.NewDesc("faasbench_cell_requests_total", "Completed requests of the current cell, by outcome class.", append(cellLabels, "class"), nil)
	descCellCold  = prometheus.NewDesc("faasbench_cell_cold_starts_total", "Cold starts the current cell's replies reported.", cellLabels, nil)
	descCellLat   = prometheus.NewDesc("faasbench_cell_latency_seconds", "The current cell's successful requests' latency from their intended send time (corrected for coordinated omission), in the load engine's per-second buckets, an octave apart here.", cellLabels, nil)
	descCellAge   = prometheus.NewDesc("faasbench_cell_elapsed_seconds", "Seconds since the current cell's load began.", cellLabels, nil)
	descCellConc  = prometheus.NewDesc("faasbench_cell_concurrency", "The current cell's connections in a closed loop (0 in an open loop).", cellLabels, nil)
	descCellRate  = prometheus.NewDesc("faasbench_cell_offered_rps", "The current cell's offered rate in an open loop (0 in a closed loop).", cellLabels, nil)
	descInFlight  = prometheus.NewDesc("faasbench_cell_in_flight", "The current cell's requests sent and not answered yet (every generator's).", cellLabels, nil)
	descBehind    = prometheus.NewDesc("faasbench_cell_behind_requests", "Requests the current cell's open-loop schedule had due that were not sent yet (0 on time, and in a closed loop).", cellLabels, nil)
	descLag       = prometheus.NewDesc("faasbench_cell_generator_lag_seconds", "How late the next request due of the current cell's open loop is (0 on time; with several generators the largest).", cellLabels, nil)
	descColdTime  = prometheus.NewDesc("faasbench_cell_cold_start_seconds", "The current cell's cold starts by kind (the reply's X-Fb-Cold-Kind) and phase: total is the latency from the intended send, gateway_wait the wait at the platform's gateway for an instance, setup from the instance assigned to the handler's start (where the gateway stamps them); _count and _sum.", append(cellLabels, "kind", "phase"), nil)
	descGenCPU    = prometheus.NewDesc("faasbench_generator_cpu_seconds_total", "CPU time of this faasbench process (the load generator, or the coordinator of load.generators).", runLabels, nil)
	descReplicas  = prometheus.NewDesc("faasbench_function_replicas", "A function's replicas at the last timeline sample, by state (ready, desired).", append(fnLabels, "state"), nil)
	descCPU       = prometheus.NewDesc("faasbench_function_cpu_cores", "A function's instances' CPU since the previous timeline sample, in cores.", fnLabels, nil)
	descMemory    = prometheus.NewDesc("faasbench_function_memory_bytes", "A function's instances' memory at the last timeline sample.", fnLabels, nil)
	descQueued    = prometheus.NewDesc("faasbench_function_queued_requests", "Requests waiting for a free instance at the last timeline sample (where the platform says).", fnLabels, nil)
)

type collector struct{ e *Exporter }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRunInfo, descCells, descCellsDone, descRunReqs, descCellReqs, descCellCold, descCellLat,
		descCellAge, descCellConc, descCellRate, descInFlight, descBehind, descLag, descColdTime, descGenCPU, descReplicas, descCPU, descMemory, descQueued} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	e := c.e
	e.mu.Lock()
	run, name, plat, total, done := e.run, e.name, e.platform, e.cellsTotal, e.cellsDone
	cell, live, start, timeline := e.cell, e.live, e.cellStart, e.timeline
	finished := make(map[string]int64, len(e.finished))
	for k, n := range e.finished {
		finished[k] = n
	}
	e.mu.Unlock()
	if run == "" {
		return // no run yet
	}
	ch <- prometheus.MustNewConstMetric(descRunInfo, prometheus.GaugeValue, 1, run, name, plat)
	ch <- prometheus.MustNewConstMetric(descCells, prometheus.GaugeValue, float64(total), run)
	ch <- prometheus.MustNewConstMetric(descCellsDone, prometheus.GaugeValue, float64(done), run)
	if cpu, ok := processCPU(); ok {
		ch <- prometheus.MustNewConstMetric(descGenCPU, prometheus.CounterValue, cpu.Seconds(), run)
	}
	var v load.LiveView
	live.Read(&v) // a nil live reads zeros
	for cl, n := range v.Counts {
		finished[load.Class(cl).String()] += n
	}
	for class, n := range finished {
		if n > 0 {
			ch <- prometheus.MustNewConstMetric(descRunReqs, prometheus.CounterValue, float64(n), run, class)
		}
	}
	if cell != nil {
		lv := []string{run, cell.ID, cell.Function, plat}
		for cl, n := range v.Counts {
			if n > 0 {
				ch <- prometheus.MustNewConstMetric(descCellReqs, prometheus.CounterValue, float64(n), append(lv, load.Class(cl).String())...)
			}
		}
		ch <- prometheus.MustNewConstMetric(descCellCold, prometheus.CounterValue, float64(v.Cold), lv...)
		ch <- newLatencyMetric(v, lv)
		ch <- prometheus.MustNewConstMetric(descCellAge, prometheus.GaugeValue, e.now().Sub(start).Seconds(), lv...)
		ch <- prometheus.MustNewConstMetric(descCellConc, prometheus.GaugeValue, float64(cell.Concurrency), lv...)
		ch <- prometheus.MustNewConstMetric(descCellRate, prometheus.GaugeValue, cell.Rate, lv...)
		ch <- prometheus.MustNewConstMetric(descInFlight, prometheus.GaugeValue, float64(v.InFlight()), lv...)
		ch <- prometheus.MustNewConstMetric(descBehind, prometheus.GaugeValue, float64(v.Behind), lv...)
		ch <- prometheus.MustNewConstMetric(descLag, prometheus.GaugeValue, float64(v.LagNs)/1e9, lv...)
		for kind, c := range v.ColdByKind {
			for _, ph := range []struct {
				name string
				n    int64
				ns   int64
			}{{"total", c.N, c.LatencyNs}, {"gateway_wait", c.Waited, c.WaitNs}, {"setup", c.SetUp, c.SetupNs}} {
				if ph.n > 0 {
					ch <- prometheus.MustNewConstSummary(descColdTime, uint64(ph.n), float64(ph.ns)/1e9, nil, append(lv, kind, ph.name)...)
				}
			}
		}
	}
	if timeline == nil {
		return
	}
	for _, s := range timeline() {
		lf := []string{run, s.Function, plat}
		ch <- prometheus.MustNewConstMetric(descReplicas, prometheus.GaugeValue, float64(s.Ready), append(lf, "ready")...)
		ch <- prometheus.MustNewConstMetric(descReplicas, prometheus.GaugeValue, float64(s.Desired), append(lf, "desired")...)
		ch <- prometheus.MustNewConstMetric(descCPU, prometheus.GaugeValue, s.CPUCores, lf...)
		ch <- prometheus.MustNewConstMetric(descMemory, prometheus.GaugeValue, s.MemoryMiB*(1<<20), lf...)
		ch <- prometheus.MustNewConstMetric(descQueued, prometheus.GaugeValue, float64(s.Queued), lf...)
	}
}

// processCPU is this process's CPU time, user and system.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
