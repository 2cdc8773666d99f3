// Package report renders run directories as a self-contained HTML page with
// inline SVG charts (no script, no network request) and as Markdown.
package report

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Point is one (x, y) value, with an optional error bar [Lo, Hi].
type Point struct {
	X, Y   float64
	Lo, Hi float64
	HasBar bool
}

// Series is one line.
type Series struct {
	Name   string
	Points []Point
}

// LineChart is a chart of lines over a shared x axis.
type LineChart struct {
	Title, XLabel, YLabel string
	LogX                  bool    // log2 x axis (concurrency, payload sizes)
	YMax                  float64 // fixed top of the y axis (0: from the data)
	Series                []Series
	Width, Height         int
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"}

const (
	padL, padR, padT, padB = 64, 150, 36, 48
)

// niceStep returns a round tick step for a span with about n ticks.
func niceStep(span float64, n int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*mag {
			return m * mag
		}
	}
	return 10 * mag
}

func fmtNum(v float64) string {
	switch {
	case v == 0:
		return "0"
	case math.Abs(v) >= 1000:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 1:
		return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.1f", v), "0"), ".")
	default:
		return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
	}
}

// SVG renders the chart. Every point carries a <title> with its values, so
// hovering shows them without any script.
// geom is where a line chart puts things.
type geom struct {
	w, h, padR int
	xs         []float64
	ytop, step float64
	pw, ph     float64
	px, py     func(float64) float64
}

// geometry lays the chart out (nil when it has no point).
func (c LineChart) geometry() *geom {
	g := &geom{w: c.Width, h: c.Height, padR: padR}
	if g.w == 0 {
		g.w = 640
	}
	if g.h == 0 {
		g.h = 360
	}
	// The legend is as wide as the longest series name.
	for _, sr := range c.Series {
		g.padR = max(g.padR, 40+int(float64(len([]rune(sr.Name)))*6.2))
	}
	g.w += g.padR - padR
	ymax := 0.0
	for _, s := range c.Series {
		for _, p := range s.Points {
			g.xs = append(g.xs, p.X)
			ymax = math.Max(ymax, math.Max(p.Y, p.Hi))
		}
	}
	if len(g.xs) == 0 {
		return nil
	}
	tx := func(x float64) float64 { return x }
	if c.LogX {
		tx = func(x float64) float64 { return math.Log2(math.Max(x, 1e-9)) }
	}
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, x := range g.xs {
		xmin, xmax = math.Min(xmin, tx(x)), math.Max(xmax, tx(x))
	}
	if xmax == xmin {
		xmin, xmax = xmin-1, xmax+1
	}
	if ymax <= 0 {
		ymax = 1
	}
	g.step = niceStep(ymax, 5)
	g.ytop = math.Ceil(ymax*1.05/g.step) * g.step
	if c.YMax > 0 {
		g.ytop, g.step = c.YMax, niceStep(c.YMax, 5)
	}
	g.pw, g.ph = float64(g.w-padL-g.padR), float64(g.h-padT-padB)
	g.px = func(x float64) float64 { return float64(padL) + (tx(x)-xmin)/(xmax-xmin)*g.pw }
	g.py = func(y float64) float64 { return float64(padT) + g.ph - y/g.ytop*g.ph }
	return g
}

func (c LineChart) SVG() string {
	g := c.geometry()
	w, h := 640, 360
	if g != nil {
		w, h = g.w, g.h
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" class="chart" role="img" aria-label="%s">`, w, h, w, h, html.EscapeString(c.Title))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/>`, w, h)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14" font-weight="bold" font-family="sans-serif">%s</text>`, padL, html.EscapeString(c.Title))
	if g == nil {
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-family="sans-serif" fill="#888">no data</text></svg>`, w/2-30, h/2)
		return b.String()
	}
	xs, ytop, step, pw, ph, px, py, padR := g.xs, g.ytop, g.step, g.pw, g.ph, g.px, g.py, g.padR

	// Axes and grid.
	for y := 0.0; y <= ytop+step/2; y += step {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`, padL, py(y), float64(padL)+pw, py(y))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="11" text-anchor="end" font-family="sans-serif">%s</text>`, padL-6, py(y)+4, fmtNum(y))
	}
	for _, x := range xTicks(xs, c.LogX) {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#f0f0f0"/>`, px(x), float64(padT), px(x), float64(padT)+ph)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle" font-family="sans-serif">%s</text>`, px(x), float64(padT)+ph+16, fmtNum(x))
	}
	dense := len(xs) > 60 // time series and CDFs: a line without markers
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`, padL, float64(padT)+ph, float64(padL)+pw, float64(padT)+ph)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%.1f" stroke="#333"/>`, padL, padT, padL, float64(padT)+ph)
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="12" text-anchor="middle" font-family="sans-serif">%s</text>`, float64(padL)+pw/2, h-10, html.EscapeString(c.XLabel))
	fmt.Fprintf(&b, `<text x="14" y="%.1f" font-size="12" text-anchor="middle" font-family="sans-serif" transform="rotate(-90 14 %.1f)">%s</text>`, float64(padT)+ph/2, float64(padT)+ph/2, html.EscapeString(c.YLabel))

	for i, s := range c.Series {
		col := palette[i%len(palette)]
		var pts []string
		for _, p := range s.Points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(p.X), py(p.Y)))
		}
		fmt.Fprintf(&b, `<polyline class="series" fill="none" stroke="%s" stroke-width="2" points="%s"/>`, col, strings.Join(pts, " "))
		for _, p := range s.Points {
			if p.HasBar {
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`, px(p.X), py(p.Lo), px(p.X), py(p.Hi), col)
			}
			if dense {
				continue
			}
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s: %s=%s, %s=%s</title></circle>`,
				px(p.X), py(p.Y), col, html.EscapeString(s.Name), html.EscapeString(c.XLabel), fmtNum(p.X), html.EscapeString(c.YLabel), fmtNum(p.Y))
		}
		ly := padT + 14 + i*18
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="3" fill="%s"/>`, w-padR+12, ly-4, col)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" font-family="sans-serif">%s</text>`, w-padR+30, ly, html.EscapeString(s.Name))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// xTicks are the x axis labels: every distinct value when there are few
// (concurrency levels, payload sizes), else round steps (linear) or powers
// of two (log axis).
func xTicks(xs []float64, logX bool) []float64 {
	seen := map[float64]bool{}
	var distinct []float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
		if !seen[x] {
			seen[x] = true
			distinct = append(distinct, x)
		}
	}
	if len(distinct) <= 12 {
		return distinct
	}
	var out []float64
	if logX {
		e0, e1 := math.Floor(math.Log2(math.Max(lo, 1e-9))), math.Ceil(math.Log2(math.Max(hi, 1e-9)))
		every := math.Max(1, math.Ceil((e1-e0)/10))
		for e := e0; e <= e1; e += every {
			if v := math.Pow(2, e); v >= lo && v <= hi {
				out = append(out, v)
			}
		}
		return out
	}
	step := niceStep(hi-lo, 8)
	for v := math.Ceil(lo/step) * step; v <= hi+step/1e6; v += step {
		out = append(out, v)
	}
	return out
}
