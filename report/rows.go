package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

// Row is one cell key aggregated over its repetitions.
type Row struct {
	Run         string
	Key         string
	Function    string
	Concurrency int
	Reps        int
	RPS         Agg
	P50, P90    Agg
	P99         Agg
	MaxMs       float64
	Requests    int64
	Failed      int64
	Errors      string
	ColdStarts  int64
	Interrupted bool
	// Detail is the kind's own figures (batch, coldstart, autoscale), each
	// the median over repetitions with its range.
	Detail string
	// DataPath is what the platform said its data path was (Knative's activator in the path or
	// not), each distinct one of the repetitions once.
	DataPath string
	// Efficiency says what a million successful invocations took (median
	// over repetitions), "" without resource samples.
	Efficiency string
	// Generators says how the load was split over generators
	// (load.generators), "" when one process sent it.
	Generators string
	// Warnings are the cells' warnings, each once.
	Warnings []string
	// Pooled is the successes' latency of every repetition together, from
	// their merged histograms (hlog/): never an average of percentiles.
	Pooled *stats.Percentiles
	// Spread is the p99's spread between repetitions, in words.
	Spread string
	// RPSReps is the throughput over repetitions with its intervals.
	RPSReps stats.Reps
	// cells are the key's repetitions; hist their pooled successes'
	// histogram (nil without hlog files): read once, for the table and
	// every chart.
	cells []results.Cell
	hist  *hist.Histogram
}

// runRows is a run with its rows, computed once per report.
type runRows struct {
	Run
	Rows []Row
}

func withRows(runs []Run) []runRows {
	rr := make([]runRows, len(runs))
	for i, r := range runs {
		rr[i] = runRows{Run: r, Rows: Rows(r)}
	}
	return rr
}

// Agg is the median of repetition-level figures with their range. Present is
// false when no repetition had the figure (e.g. p99 with too few samples).
type Agg struct {
	Median, Min, Max float64
	N                int
	Present          bool
}

func aggregate(vs []float64) Agg {
	if len(vs) == 0 {
		return Agg{}
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Agg{Median: m, Min: s[0], Max: s[len(s)-1], N: len(s), Present: true}
}

// seconds writes an autoscaling time: "at 8 [8–10] s", or, when no repetition saw the event (a scale-up that
// never came: the field is null in every one), what did not happen, not "n too small" as for a percentile.
func seconds(prefix string, a Agg, suffix, none string) string {
	if !a.Present {
		return none
	}
	return prefix + a.String() + " s" + suffix
}

func (a Agg) String() string {
	if !a.Present {
		return "n too small"
	}
	if a.N > 1 && a.Max > a.Min {
		return fmt.Sprintf("%s [%s–%s]", fmtNum(a.Median), fmtNum(a.Min), fmtNum(a.Max))
	}
	return fmtNum(a.Median)
}

// Rows aggregates a run's cells by key, in plan order.
func Rows(r Run) []Row {
	byKey := map[string][]results.Cell{}
	var order []string
	for _, c := range r.Summary.Cells {
		if _, ok := byKey[c.Key]; !ok {
			order = append(order, c.Key)
		}
		byKey[c.Key] = append(byKey[c.Key], c)
	}
	var rows []Row
	for _, k := range order {
		cs := byKey[k]
		row := Row{Run: r.Summary.Name, Key: k, Function: cs[0].Function, Concurrency: cs[0].Concurrency, Reps: len(cs)}
		var rps, p50, p90, p99 []float64
		errs := map[string]int64{}
		for _, c := range cs {
			rps = append(rps, c.ThroughputRPS)
			if c.SuccessLatencyMs.P50 != nil {
				p50 = append(p50, *c.SuccessLatencyMs.P50)
			}
			if c.SuccessLatencyMs.P90 != nil {
				p90 = append(p90, *c.SuccessLatencyMs.P90)
			}
			if c.SuccessLatencyMs.P99 != nil {
				p99 = append(p99, *c.SuccessLatencyMs.P99)
			}
			row.MaxMs = max(row.MaxMs, c.LatencyMs.Max)
			row.Requests += c.Requests.Total
			row.Failed += c.Requests.Failed
			row.ColdStarts += c.ColdStarts
			row.Interrupted = row.Interrupted || c.Interrupted
			for e, n := range c.Errors {
				errs[e] += n
			}
		}
		row.RPS, row.P50, row.P90, row.P99 = aggregate(rps), aggregate(p50), aggregate(p90), aggregate(p99)
		row.RPSReps = stats.SummariseReps(rps)
		// The cells' histogram logs, read once (results.CellHistograms): the
		// pooled distribution the charts draw, and the key's figures where the
		// summary has none.
		row.cells = cs
		var hs []*hist.Histogram
		if r.Dir != "" {
			if read, err := results.CellHistograms(r.Dir, cs); err == nil {
				hs = read
				row.hist, _ = results.Pooled(hs)
			}
		}
		if row.hist != nil {
			p := stats.Of(row.hist)
			switch {
			case len(cs) > 1:
				// The headline interval: the bootstrap over whole repetitions,
				// as the run's summary keeps it (pooled here only for a run
				// written before summaries had keys).
				key := summaryKey(r, k, cs)
				if key == nil {
					pk := results.PoolKey(r.Dir, k, cs, hs)
					key = &pk
				}
				p.Intervals = key.SuccessLatencyMs.Intervals
				row.Spread = key.SpreadText("p99")
			default:
				p.Intervals = cs[0].SuccessLatencyMs.Intervals // within the run, labelled
			}
			row.Pooled = &p
		}
		row.Errors = formatErrors(errs)
		row.Detail = detail(cs)
		if rep := reported(cs); rep != "" {
			row.Detail = strings.TrimPrefix(row.Detail+"; "+rep, "; ")
		}
		var paths []string
		for _, c := range cs {
			if c.DataPath != "" && !slices.Contains(paths, c.DataPath) {
				paths = append(paths, c.DataPath)
			}
		}
		row.DataPath = strings.Join(paths, "; ")
		row.Generators = generatorsLine(cs)
		row.Efficiency = efficiencyLine(cs)
		seen := map[string]bool{}
		for _, c := range cs {
			for _, w := range c.Warnings {
				if !seen[w] {
					seen[w] = true
					row.Warnings = append(row.Warnings, w)
				}
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// CI formats the throughput's interval over repetitions, or says why there is none.
func (r Row) CI() string {
	switch {
	case r.RPSReps.MedianLo != nil:
		return fmt.Sprintf("median %s [%s–%s]", fmtNum(r.RPSReps.Median), fmtNum(*r.RPSReps.MedianLo), fmtNum(*r.RPSReps.MedianHi))
	case r.RPSReps.MeanLo != nil:
		return fmt.Sprintf("mean %s ± %s (t, n=%d)", fmtNum(r.RPSReps.Mean), fmtNum((*r.RPSReps.MeanHi-*r.RPSReps.MeanLo)/2), r.RPSReps.N)
	}
	return "n=1: none"
}

// PooledP99 formats the pooled p99.
func (r Row) PooledP99() string {
	if r.Pooled == nil {
		return "-"
	}
	if r.Pooled.P99 == nil {
		return fmt.Sprintf("n too small (%d)", r.Pooled.Count)
	}
	v := fmtNum(*r.Pooled.P99)
	if r.Pooled.Intervals == nil || r.Pooled.Intervals.P99 == nil {
		return v + " [none]"
	}
	iv := r.Pooled.Intervals.P99
	if iv.Method == stats.MethodOrderStatistic {
		return fmt.Sprintf("%s [%s–%s within the run]", v, fmtNum(iv.Lo), fmtNum(iv.Hi))
	}
	out := fmt.Sprintf("%s [%s–%s]", v, fmtNum(iv.Lo), fmtNum(iv.Hi))
	if r.Spread != "" && r.Spread != "-" {
		out += "; between repetitions " + r.Spread
	}
	return out
}

// detail aggregates the kind-specific figures of a key's cells.
func detail(cs []results.Cell) string {
	pick := func(f func(results.Cell) (float64, bool)) Agg {
		var vs []float64
		for _, c := range cs {
			if v, ok := f(c); ok {
				vs = append(vs, v)
			}
		}
		return aggregate(vs)
	}
	c0 := cs[0]
	switch {
	case c0.Batch != nil:
		return fmt.Sprintf("batch of %d with K=%d: %s s, %s items/s, %s MiB/s, retries %s",
			c0.Batch.Items, c0.Batch.InFlight,
			pick(func(c results.Cell) (float64, bool) { return c.Batch.DurationS, c.Batch != nil }),
			pick(func(c results.Cell) (float64, bool) { return c.Batch.ItemsPerS, c.Batch != nil }),
			pick(func(c results.Cell) (float64, bool) { return c.Batch.MiBPerS, c.Batch != nil }),
			pick(func(c results.Cell) (float64, bool) { return float64(c.Batch.Retries), c.Batch != nil }))
	case c0.Cold != nil && c0.Cold.ColdShare != nil:
		return fmt.Sprintf("after %.1f s idle, share of calls the function flagged cold: %s", c0.Cold.IdleS,
			pick(func(c results.Cell) (float64, bool) {
				return *c.Cold.ColdShare, c.Cold != nil && c.Cold.ColdShare != nil
			}))
	case c0.Cold != nil:
		ver, it := 0, 0
		for _, c := range cs {
			ver, it = ver+c.Cold.Verified, it+c.Cold.Iterations
		}
		line := fmt.Sprintf("cold mean %s ms (%d of %d verified cold), warm mean %s ms; of the cold call: waiting for the instance %s ms, handler %s ms",
			pick(func(c results.Cell) (float64, bool) { return c.Cold.ColdMs.Mean, c.Cold.Verified > 0 }), ver, it,
			pick(func(c results.Cell) (float64, bool) { return c.Cold.WarmMs.Mean, c.Cold.WarmMs.Count > 0 }),
			pick(func(c results.Cell) (float64, bool) { return c.Cold.WaitMs.Mean, c.Cold.WaitMs.Count > 0 }),
			pick(func(c results.Cell) (float64, bool) { return c.Cold.HandlerMs.Mean, c.Cold.HandlerMs.Count > 0 }))
		var phases []string
		for _, name := range results.PhaseNames {
			a := pick(func(c results.Cell) (float64, bool) {
				p, ok := c.Cold.PhasesMs[name]
				if !ok || p.P50 == nil {
					return 0, false
				}
				return *p.P50, true
			})
			if a.N > 0 {
				phases = append(phases, strings.ReplaceAll(name, "_", " ")+" "+a.String())
			}
		}
		if len(phases) > 0 {
			line += "; the start, median ms after the send: " + strings.Join(phases, ", ")
		}
		return line + stagesDetail(cs)
	case c0.ColdRate != nil:
		return coldRateDetail(cs)
	case c0.Trace != nil:
		return traceDetail(cs)
	case c0.Capacity != nil:
		return capacityDetail(cs)
	case c0.Scaling != nil:
		opt := func(f func(*results.ScalingResult) *float64) Agg {
			return pick(func(c results.Cell) (float64, bool) {
				if c.Scaling == nil || f(c.Scaling) == nil {
					return 0, false
				}
				return *f(c.Scaling), true
			})
		}
		line := fmt.Sprintf("replicas max %s (first scale-up %s, max %s), back down %s; errors while scaling %s",
			pick(func(c results.Cell) (float64, bool) { return float64(c.Scaling.MaxReplicas), c.Scaling != nil }),
			seconds("at ", opt(func(s *results.ScalingResult) *float64 { return s.FirstScaleUpS }), "", "none in any repetition"),
			seconds("at ", opt(func(s *results.ScalingResult) *float64 { return s.TimeToMaxS }), "", "not reached"),
			seconds("", opt(func(s *results.ScalingResult) *float64 { return s.ScaleDownS }), " after the load", "not seen after the load"),
			pick(func(c results.Cell) (float64, bool) { return float64(c.Scaling.ErrorsScaling), c.Scaling != nil }))
		el := func(f func(*results.Elasticity) float64) Agg {
			return pick(func(c results.Cell) (float64, bool) {
				if c.Scaling == nil || c.Scaling.Elasticity == nil {
					return 0, false
				}
				return f(c.Scaling.Elasticity), true
			})
		}
		if under := el(func(e *results.Elasticity) float64 { return e.AccuracyUnder }); under.N > 0 {
			line += fmt.Sprintf("; elasticity (BUNGEE, %%): under-provisioning accuracy %s and time share %s, over %s and %s, instability %s; the required instances (peak %s) ready at %s s",
				under, el(func(e *results.Elasticity) float64 { return e.TimeshareUnder }),
				el(func(e *results.Elasticity) float64 { return e.AccuracyOver }), el(func(e *results.Elasticity) float64 { return e.TimeshareOver }),
				el(func(e *results.Elasticity) float64 { return e.Instability }), el(func(e *results.Elasticity) float64 { return float64(e.PeakRequired) }),
				pick(func(c results.Cell) (float64, bool) {
					if c.Scaling == nil || c.Scaling.Elasticity == nil || c.Scaling.Elasticity.ToRequiredS == nil {
						return 0, false
					}
					return *c.Scaling.Elasticity.ToRequiredS, true
				}))
		}
		return line
	}
	return ""
}

func formatErrors(errs map[string]int64) string {
	if len(errs) == 0 {
		return "none"
	}
	return results.FormatCounts(errs, " ")
}

// reported is the times the function reported inside itself (X-Fb-Phases),
// each the median over repetitions of its mean, with their range.
func reported(cs []results.Cell) string {
	var names []string
	for _, c := range cs {
		for n := range c.ReportedMs {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		var vs []float64
		for _, c := range cs {
			if p, ok := c.ReportedMs[n]; ok && p.Count > 0 {
				vs = append(vs, p.Mean)
			}
		}
		parts = append(parts, n+" "+aggregate(vs).String())
	}
	return "the function's own times, mean ms: " + strings.Join(parts, ", ")
}

// generatorsLine summarises the generators of a key's repetitions: how many,
// where, the requests each sent (repetitions added), the widest clock
// uncertainty, the latest start and any failure.
func generatorsLine(cs []results.Cell) string {
	var req []int64
	var hosts []string
	var unc, late, cpu float64
	var failed []string
	for _, c := range cs {
		for _, g := range c.Generators {
			for len(req) <= g.Index {
				req = append(req, 0)
			}
			req[g.Index] += g.Requests
			if g.Host != "" && !slices.Contains(hosts, g.Host) {
				hosts = append(hosts, g.Host)
			}
			unc, late, cpu = max(unc, g.ClockUncertaintyMs), max(late, g.LateMs), max(cpu, g.CPUMax)
			if g.Error != "" {
				failed = append(failed, fmt.Sprintf("%d: %s", g.Index, g.Error))
			}
		}
	}
	if len(req) == 0 {
		return ""
	}
	parts := make([]string, len(req))
	for i, n := range req {
		parts[i] = fmt.Sprint(n)
	}
	where := strings.Join(hosts, ", ")
	if len(hosts) > 4 {
		where = fmt.Sprintf("%s, … (%d hosts)", strings.Join(hosts[:3], ", "), len(hosts))
	}
	out := fmt.Sprintf("%d generators (%s): requests %s; clocks within ±%.3f ms; latest start %.1f ms late; peak CPU %.2f cores",
		len(req), where, strings.Join(parts, "/"), unc, late, cpu)
	if len(failed) > 0 {
		out += "; failed: " + strings.Join(failed, "; ")
	}
	return out
}

// efficiencyLine is what a million successful invocations took, the median
// over the repetitions that have resource samples.
func efficiencyLine(cs []results.Cell) string {
	var cpu, gb, cpuA, gbA, used, alloc []float64
	cur := ""
	for _, c := range cs {
		e := c.Efficiency
		if e == nil || e.Samples == 0 || c.Requests.Succeeded == 0 {
			continue
		}
		cpu, gb = append(cpu, e.PerMillion.CPUSecondsUsed), append(gb, e.PerMillion.GBSecondsUsed)
		if v := e.PerMillion.CPUSecondsAllocated; v != nil {
			cpuA = append(cpuA, *v)
		}
		if v := e.PerMillion.GBSecondsAllocated; v != nil {
			gbA = append(gbA, *v)
		}
		if e.Cost != nil {
			cur = e.Cost.Currency
			used = append(used, e.Cost.PerMillionUsed)
			if e.Cost.PerMillionAllocated != nil {
				alloc = append(alloc, *e.Cost.PerMillionAllocated)
			}
		}
	}
	own := platformLine(cs)
	if len(cpu) == 0 {
		return own
	}
	out := fmt.Sprintf("per million successful invocations: %s CPU-s and %s GB-s used", fmtNum(aggregate(cpu).Median), fmtNum(aggregate(gb).Median))
	if len(cpuA) > 0 && len(gbA) > 0 {
		out += fmt.Sprintf(", %s CPU-s and %s GB-s allocated", fmtNum(aggregate(cpuA).Median), fmtNum(aggregate(gbA).Median))
	}
	if len(used) > 0 {
		out += fmt.Sprintf("; cost %s %s used", fmtNum(aggregate(used).Median), cur)
		if len(alloc) > 0 {
			out += fmt.Sprintf(", %s %s allocated", fmtNum(aggregate(alloc).Median), cur)
		}
	}
	if own != "" {
		out += "; " + own
	}
	return out
}

// platformLine is the platform's own footprint under a key's load: the
// median over its repetitions of the components' mean CPU and memory, and
// of their CPU-seconds per million successful invocations.
func platformLine(cs []results.Cell) string {
	var cores, mib, perM []float64
	coarse := false
	for _, c := range cs {
		if f := c.PlatformFootprint; f != nil {
			coarse = coarse || f.Note != ""
			cores, mib = append(cores, f.CPUCores), append(mib, f.MemoryMiB)
			if f.PerMillionCPUSeconds != nil {
				perM = append(perM, *f.PerMillionCPUSeconds)
			}
		}
	}
	if len(cores) == 0 {
		return ""
	}
	out := fmt.Sprintf("the platform's own components under this load: %s cores, %s MiB", fmtNum(aggregate(cores).Median), fmtNum(aggregate(mib).Median))
	if len(perM) > 0 {
		out += fmt.Sprintf(" (%s CPU-s per million invocations)", fmtNum(aggregate(perM).Median))
	}
	if coarse {
		out += "; its CPU is not to be trusted: the source's counters refresh less often than the cell (see summary.json)"
	}
	return out
}

// summaryKey is key over its repetitions (its interval across them, its
// spread) as the run's summary keeps it; nil for a run written before
// summaries had keys.
func summaryKey(r Run, key string, cs []results.Cell) *results.Key {
	for _, k := range r.Summary.Keys {
		if k.Key == key && k.Reps == len(cs) {
			return &k
		}
	}
	return nil
}
