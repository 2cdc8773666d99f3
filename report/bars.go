package report

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Chart is any figure of the report.
type Chart interface {
	SVG() string
	Name() string
}

// Name is the chart's title.
func (c LineChart) Name() string { return c.Title }

// BarChart is stacked bars over categories (a latency breakdown; cold
// against warm).
type BarChart struct {
	Title, YLabel string
	Categories    []string
	// Segments stack bottom up; Values[i] belongs to Categories[i].
	Segments []Segment
}

// Segment is one layer of the stacks.
type Segment struct {
	Name   string
	Values []float64
}

// Name is the chart's title.
func (c BarChart) Name() string { return c.Title }

// SVG renders the chart.
func (c BarChart) SVG() string {
	const h, bottom = 380, 110
	legendW := 40
	for _, s := range c.Segments {
		legendW = max(legendW, 40+int(float64(len([]rune(s.Name)))*6.2))
	}
	barW, gap := 34.0, 22.0
	w := padL + int(float64(len(c.Categories))*(barW+gap)+gap) + legendW
	w = max(w, 420)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" class="chart" role="img" aria-label="%s">`, w, h, w, h, html.EscapeString(c.Title))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/>`, w, h)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14" font-weight="bold" font-family="sans-serif">%s</text>`, padL, html.EscapeString(c.Title))
	top := 0.0
	for i := range c.Categories {
		sum := 0.0
		for _, s := range c.Segments {
			if i < len(s.Values) {
				sum += s.Values[i]
			}
		}
		top = math.Max(top, sum)
	}
	if top <= 0 {
		top = 1
	}
	step := niceStep(top, 5)
	ytop := math.Ceil(top*1.05/step) * step
	ph := float64(h - padT - bottom)
	py := func(y float64) float64 { return float64(padT) + ph - y/ytop*ph }
	for y := 0.0; y <= ytop+step/2; y += step {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e5e5e5"/>`, padL, py(y), w-legendW, py(y))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="11" text-anchor="end" font-family="sans-serif">%s</text>`, padL-6, py(y)+4, fmtNum(y))
	}
	fmt.Fprintf(&b, `<text x="14" y="%.1f" font-size="12" text-anchor="middle" font-family="sans-serif" transform="rotate(-90 14 %.1f)">%s</text>`, float64(padT)+ph/2, float64(padT)+ph/2, html.EscapeString(c.YLabel))
	for i, cat := range c.Categories {
		x := float64(padL) + gap + float64(i)*(barW+gap)
		base := 0.0
		for j, s := range c.Segments {
			if i >= len(s.Values) || s.Values[i] <= 0 {
				continue
			}
			v := s.Values[i]
			fmt.Fprintf(&b, `<rect class="series" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s, %s: %s</title></rect>`,
				x, py(base+v), barW, py(base)-py(base+v), palette[j%len(palette)], html.EscapeString(cat), html.EscapeString(s.Name), fmtNum(v))
			base += v
		}
		lx, ly := x+barW/2, py(0)+8
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="end" font-family="sans-serif" transform="rotate(-40 %.1f %.1f)">%s</text>`, lx, ly, lx, ly, html.EscapeString(shorten(cat, 28)))
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#333"/>`, padL, py(0), w-legendW, py(0))
	for j, s := range c.Segments {
		ly := padT + 14 + j*18
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="10" fill="%s"/>`, w-legendW+12, ly-9, palette[j%len(palette)])
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" font-family="sans-serif">%s</text>`, w-legendW+30, ly, html.EscapeString(s.Name))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}

// BoxChart is box plots over a numeric x axis (seed 000's Fig 3: latency
// per payload size): the box from p25 to p75 with the median, whiskers
// from p5 to p95, of the pooled successes.
type BoxChart struct {
	Title, XLabel, YLabel string
	LogX                  bool
	Series                []BoxSeries
}

// BoxSeries is one function's boxes.
type BoxSeries struct {
	Name  string
	Boxes []Box
}

// Box is one x value's distribution.
type Box struct{ X, P5, P25, P50, P75, P95 float64 }

// Name is the chart's title.
func (c BoxChart) Name() string { return c.Title }

// SVG renders the chart by drawing its frame as a line chart of medians
// (same axes and legend) and the boxes over it.
func (c BoxChart) SVG() string {
	lc := LineChart{Title: c.Title, XLabel: c.XLabel, YLabel: c.YLabel, LogX: c.LogX}
	for _, s := range c.Series {
		ls := Series{Name: s.Name}
		for _, bx := range s.Boxes {
			ls.Points = append(ls.Points, Point{X: bx.X, Y: bx.P50, Lo: bx.P5, Hi: bx.P95})
		}
		lc.Series = append(lc.Series, ls)
	}
	frame := lc.SVG()
	geo := lc.geometry()
	if geo == nil {
		return frame
	}
	var b strings.Builder
	for i, s := range c.Series {
		col := palette[i%len(palette)]
		off := (float64(i) - float64(len(c.Series)-1)/2) * 9
		for _, bx := range s.Boxes {
			x := geo.px(bx.X) + off
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`, x, geo.py(bx.P5), x, geo.py(bx.P95), col)
			fmt.Fprintf(&b, `<rect class="series" x="%.1f" y="%.1f" width="8" height="%.1f" fill="%s" fill-opacity="0.35" stroke="%s"><title>%s %s: p5 %s, p25 %s, p50 %s, p75 %s, p95 %s</title></rect>`,
				x-4, geo.py(bx.P75), math.Max(1, geo.py(bx.P25)-geo.py(bx.P75)), col, col, html.EscapeString(s.Name), fmtNum(bx.X),
				fmtNum(bx.P5), fmtNum(bx.P25), fmtNum(bx.P50), fmtNum(bx.P75), fmtNum(bx.P95))
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>`, x-4, geo.py(bx.P50), x+4, geo.py(bx.P50), col)
		}
	}
	return strings.TrimSuffix(frame, "</svg>") + b.String() + "</svg>"
}
