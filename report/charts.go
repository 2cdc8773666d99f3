package report

import (
	"encoding/json"
	"math"
	"sort"
	"strings"

	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/results"
)

// xDim picks a run's x axis: concurrency when it varies, else the first
// grid parameter with several numeric values (payload_size, replicas,
// workers, memory_mb), else concurrency.
func xDim(runs []runRows) string {
	vals := map[string]map[string]bool{}
	for _, r := range runs {
		for _, c := range r.Summary.Cells {
			add := func(k, v string) {
				if vals[k] == nil {
					vals[k] = map[string]bool{}
				}
				vals[k][v] = true
			}
			add("c", itoa(c.Concurrency))
			for _, p := range c.Params {
				add(p.Name, p.Value)
			}
		}
	}
	if len(vals["c"]) > 1 {
		return "c"
	}
	for _, d := range []string{"payload_size", "replicas", "workers", "memory_mb", "cpus"} {
		if len(vals[d]) > 1 {
			return d
		}
	}
	return "c"
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// xOf is a cell's x value on dimension d, and its series name (the key
// without that dimension).
func xOf(c results.Cell, d string) (float64, string) {
	series := c.Function
	x := float64(c.Concurrency)
	for _, p := range c.Params {
		if p.Name == d {
			if v, ok := c.Params.Float(d); ok {
				x = v
			}
			continue
		}
		series += "/" + p.Name + "=" + p.Value
	}
	if d != "c" {
		series += "/c=" + itoa(c.Concurrency)
	}
	return x, series
}

var xLabels = map[string]string{"c": "concurrency", "payload_size": "payload bytes", "replicas": "replicas", "workers": "workers per instance", "memory_mb": "memory limit MB", "cpus": "CPU limit"}

// chartOver draws one line per series over the run's x dimension, each
// point the median of the repetitions with their range as a bar.
func chartOver(runs []runRows, title, ylabel string, pick func(Row) Agg) LineChart {
	d := xDim(runs)
	c := LineChart{Title: title + " vs " + xLabels[d], XLabel: xLabels[d], YLabel: ylabel, LogX: d != "cpus"}
	for _, r := range runs {
		series := map[string]*Series{}
		var names []string
		for _, row := range r.Rows {
			a := pick(row)
			if !a.Present {
				continue
			}
			if row.cells[0].Cold != nil {
				continue // a cold-start cell's figures are its own table's
			}
			x, name := xOf(row.cells[0], d)
			if len(runs) > 1 {
				name = r.Summary.Name + "/" + name
			}
			s, ok := series[name]
			if !ok {
				s = &Series{Name: name}
				series[name] = s
				names = append(names, name)
			}
			s.Points = append(s.Points, Point{X: x, Y: a.Median, Lo: a.Min, Hi: a.Max, HasBar: a.N > 1})
		}
		for _, n := range names {
			sort.Slice(series[n].Points, func(i, j int) bool { return series[n].Points[i].X < series[n].Points[j].X })
			c.Series = append(c.Series, *series[n])
		}
	}
	return c
}

// timelineCharts draws replicas, CPU and memory over the run's time, per
// function, from timeline.json (seed 003 Figs 11-14, seed 004 Figs 5.7-5.9).
func timelineCharts(runs []runRows) []LineChart {
	reps := LineChart{Title: "Ready instances over time", XLabel: "seconds", YLabel: "instances"}
	cpu := LineChart{Title: "CPU of the instances over time", XLabel: "seconds", YLabel: "cores"}
	mem := LineChart{Title: "Memory of the instances over time", XLabel: "seconds", YLabel: "MiB"}
	hcpu := LineChart{Title: "CPU of each host over time", XLabel: "seconds", YLabel: "cores"}
	hmem := LineChart{Title: "Memory in use on each host over time", XLabel: "seconds", YLabel: "MiB"}
	for _, r := range runs {
		b, err := results.ReadRunFile(r.Dir, "timeline.json")
		if err != nil {
			continue
		}
		var tl observe.Timeline
		if json.Unmarshal(b, &tl) != nil {
			continue
		}
		prefix := ""
		if len(runs) > 1 {
			prefix = r.Summary.Name + "/"
		}
		groupSeries([]*LineChart{&reps, &cpu, &mem}, len(tl.Samples), func(i int) (string, float64, []float64) {
			s := tl.Samples[i]
			return prefix + s.Function, float64(s.TMs) / 1000, []float64{float64(s.Ready), s.CPUCores, s.MemoryMiB}
		})
		groupSeries([]*LineChart{&hcpu, &hmem}, len(tl.Hosts), func(i int) (string, float64, []float64) {
			h := tl.Hosts[i]
			return prefix + h.Host, float64(h.TMs) / 1000, []float64{h.CPUCores, h.MemoryMiB}
		})
	}
	if len(reps.Series) == 0 {
		return nil
	}
	out := []LineChart{reps, cpu, mem}
	if len(hcpu.Series) > 0 {
		out = append(out, hcpu, hmem)
	}
	return out
}

// groupSeries adds to each chart one series per name (in the order the names first come), from n
// samples: sample i's name, time and one value per chart.
func groupSeries(charts []*LineChart, n int, sample func(i int) (name string, t float64, ys []float64)) {
	by := map[string][]*Series{}
	var names []string
	for i := 0; i < n; i++ {
		name, t, ys := sample(i)
		ss, ok := by[name]
		if !ok {
			ss = make([]*Series, len(charts))
			for j := range ss {
				ss[j] = &Series{Name: name}
			}
			by[name] = ss
			names = append(names, name)
		}
		for j, y := range ys {
			ss[j].Points = append(ss[j].Points, Point{X: t, Y: y})
		}
	}
	for _, name := range names {
		for j, c := range charts {
			c.Series = append(c.Series, *by[name][j])
		}
	}
}

// cdfChart draws the latency CDF of each key's pooled successes (at most
// 8 keys: the first ones of the plan), on a log x axis.
func cdfChart(runs []runRows) (LineChart, bool) {
	c := LineChart{Title: "Latency CDF (successes, repetitions pooled)", XLabel: "latency ms", YLabel: "fraction of requests", LogX: true, YMax: 1}
	for _, r := range runs {
		for _, row := range r.Rows {
			if len(c.Series) == 8 {
				break
			}
			h := row.hist
			if h == nil || h.Count() < 20 {
				continue
			}
			name := row.Key
			if len(runs) > 1 {
				name = r.Summary.Name + "/" + name
			}
			s := Series{Name: name}
			var seen int64
			total := float64(h.Count())
			h.Each(func(ns, n int64) {
				seen += n
				s.Points = append(s.Points, Point{X: float64(ns) / 1e6, Y: float64(seen) / total})
			})
			c.Series = append(c.Series, s)
		}
	}
	return c, len(c.Series) > 0
}

// slug names a chart's file.
func slug(title string) string {
	s := strings.ToLower(title)
	s = strings.NewReplacer(" ", "-", "(", "", ")", "", ",", "", "/", "-").Replace(s)
	return s
}

// boxChart draws, when the grid varies the payload size, the pooled
// successes' latency per size as box plots on a log2 axis (seed 000 Fig 3).
func boxChart(runs []runRows) (BoxChart, bool) {
	if xDim(runs) != "payload_size" {
		return BoxChart{}, false
	}
	c := BoxChart{Title: "Latency per payload size (successes, repetitions pooled)", XLabel: "payload bytes", YLabel: "latency ms", LogX: true}
	for _, r := range runs {
		byName := map[string]*BoxSeries{}
		var names []string
		for _, row := range r.Rows {
			h := row.hist
			if h == nil || h.Count() < 20 {
				continue
			}
			x, name := xOf(row.cells[0], "payload_size")
			if len(runs) > 1 {
				name = r.Summary.Name + "/" + name
			}
			s, ok := byName[name]
			if !ok {
				s = &BoxSeries{Name: name}
				byName[name] = s
				names = append(names, name)
			}
			q := func(p float64) float64 { return float64(h.Quantile(p)) / 1e6 }
			s.Boxes = append(s.Boxes, Box{X: x, P5: q(0.05), P25: q(0.25), P50: q(0.5), P75: q(0.75), P95: q(0.95)})
		}
		for _, n := range names {
			sort.Slice(byName[n].Boxes, func(i, j int) bool { return byName[n].Boxes[i].X < byName[n].Boxes[j].X })
			c.Series = append(c.Series, *byName[n])
		}
	}
	return c, len(c.Series) > 0
}

// breakdownChart stacks each key's mean latency into its parts (outside,
// gateway queue, the way into the handler, the handler, the way back; or
// the instance's round trip unsplit where the clocks do not allow it), the
// median over repetitions of each (seed 003 Fig 10).
func breakdownChart(runs []runRows) (BarChart, bool) {
	c := BarChart{Title: "Where the time goes (mean latency of successes)", YLabel: "ms",
		Segments: []Segment{{Name: "client to gateway and back"}, {Name: "gateway: waiting for an instance"},
			{Name: "gateway to instance and back (not split)"}, {Name: "gateway into the handler"}, {Name: "handler"}, {Name: "handler's reply back to the gateway"}}}
	for _, r := range runs {
		for _, row := range r.Rows {
			var parts [6][]float64
			for _, cell := range row.cells {
				if b := cell.Breakdown; b != nil {
					unsplit, setup, reply := b.InstanceMs, 0.0, 0.0
					if b.InstanceSetupMs != nil && b.InstanceReplyMs != nil {
						unsplit, setup, reply = 0, *b.InstanceSetupMs, *b.InstanceReplyMs
					}
					for i, v := range []float64{b.OutsideMs, b.GatewayQueueMs, unsplit, setup, b.HandlerMs, reply} {
						parts[i] = append(parts[i], v)
					}
				}
			}
			if len(parts[0]) == 0 || len(c.Categories) == 16 {
				continue
			}
			name := row.Key
			if len(runs) > 1 {
				name = r.Summary.Name + "/" + name
			}
			c.Categories = append(c.Categories, name)
			for i := range parts {
				c.Segments[i].Values = append(c.Segments[i].Values, aggregate(parts[i]).Median)
			}
		}
	}
	return c, len(c.Categories) > 0
}

// coldWarmChart compares each cold-start key's mean cold latency (split
// into waiting for the instance and the rest) with its warm latency
// (seed 002 Fig 4, seed 004 Table 5.1).
func coldWarmChart(runs []runRows) (BarChart, bool) {
	c := BarChart{Title: "Cold against warm (mean latency)", YLabel: "ms",
		Segments: []Segment{{Name: "waiting for the instance"}, {Name: "rest of the call"}}}
	for _, r := range runs {
		for _, row := range r.Rows {
			var wait, rest, warm []float64
			for _, cell := range row.cells {
				cr := cell.Cold
				if cr == nil || cr.ColdShare != nil || cr.Verified == 0 {
					continue
				}
				wait = append(wait, cr.WaitMs.Mean)
				rest = append(rest, math.Max(0, cr.ColdMs.Mean-cr.WaitMs.Mean))
				warm = append(warm, cr.WarmMs.Mean)
			}
			if len(wait) == 0 {
				continue
			}
			name := row.Function
			if len(runs) > 1 {
				name = r.Summary.Name + "/" + name
			}
			c.Categories = append(c.Categories, name+" cold", name+" warm")
			c.Segments[0].Values = append(c.Segments[0].Values, aggregate(wait).Median, 0)
			c.Segments[1].Values = append(c.Segments[1].Values, aggregate(rest).Median, aggregate(warm).Median)
		}
	}
	return c, len(c.Categories) > 0
}

// Charts are every figure of the report, in order; empty ones are left out.
func Charts(runs []Run) []Chart { return charts(withRows(runs)) }

func charts(runs []runRows) []Chart {
	var out []Chart
	add := func(c LineChart) {
		if len(c.Series) > 0 {
			out = append(out, c)
		}
	}
	add(chartOver(runs, "Throughput", "successful req/s", func(r Row) Agg { return r.RPS }))
	add(chartOver(runs, "Median latency (successes)", "p50 ms", func(r Row) Agg { return r.P50 }))
	add(chartOver(runs, "p99 latency (successes)", "p99 ms", func(r Row) Agg { return r.P99 }))
	if c, ok := boxChart(runs); ok {
		out = append(out, c)
	}
	if c, ok := cdfChart(runs); ok {
		out = append(out, c)
	}
	if c, ok := breakdownChart(runs); ok {
		out = append(out, c)
	}
	if c, ok := coldWarmChart(runs); ok {
		out = append(out, c)
	}
	for _, c := range timelineCharts(runs) {
		add(c)
	}
	return out
}
