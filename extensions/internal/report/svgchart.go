package report

import (
	"math"
	"regexp"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/jsnum"
	"github.com/mqbench/xk6-mqbench/internal/textclean"
)

// Inline SVG line charts for report.html and compare.html: no library, no network. Two kinds:
//
//	PercentileChart: latency by percentile on HdrHistogram's "nines" axis
//	  (x = -log10(1 - q): 50% -> 0.3, 90% -> 1, 99% -> 2, ... 99.9999% -> 6; y log scale)
//	TimeChart: a value over time (linear axes), with shaded phases (warm-up, drain).
//
// Every series is a <g class="series" data-series="NAME"> holding a <title>, a non-empty
// <path> and point markers with tooltips; the legend names each series, and ChartScript
// lets a click on a legend entry hide or show its series.

// Palette colors series that bring no color of their own.
var Palette = []string{"#d62728", "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"}

const (
	chartW, chartH                     = 640.0, 340.0
	marginT, marginR, marginB, marginL = 30.0, 34.0, 46.0, 70.0
)

// Series is one line of a chart. Points are [x, y]: [quantile, µs] on a percentile chart,
// [seconds, value] on a time chart.
type Series struct {
	Name    string
	Color   string  // "" takes the palette's color for the series' position
	Dash    string  // stroke-dasharray, "" for solid
	Width   float64 // stroke width, 0 for 2
	Opacity float64 // stroke opacity, 0 for opaque
	Points  [][2]float64
	Marks   []Mark
}

// Mark is a point marker with a tooltip: at quantile Q (percentile charts) and value V.
type Mark struct {
	Q, V  float64
	Label string
}

// Limit is a threshold drawn on a percentile chart: a short bar at its quantile and limit
// (µs), green when it passed, red when it failed.
type Limit struct {
	Q, US float64
	OK    bool
	Label string
}

// Band is a shaded phase of a time chart, from and to in seconds.
type Band struct {
	From, To float64
	Label    string
}

// Event is a moment marked on a time chart (a node killed or started), at T seconds.
type Event struct {
	T     float64
	Label string
}

// Chart describes a chart; XLabel and YLabel default to "percentile" and "latency" on a
// percentile chart.
type Chart struct {
	Title, XLabel, YLabel string
	Series                []Series
	Limits                []Limit // percentile charts
	Bands                 []Band  // time charts
	Events                []Event // time charts
	// YFormat labels a time chart's y ticks (default: plain numbers).
	YFormat func(float64) string
}

var (
	escControl = regexp.MustCompile("[\u0000-\u0008\u000b-\u001f\u007f-\u009f" + textclean.BidiClass + "]") // and bidi controls
	escHTML    = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")
)

// Esc makes text safe inside HTML or SVG text and attributes; control characters are dropped.
func Esc(s string) string { return escHTML.Replace(escControl.ReplaceAllString(s, "")) }

// USLabel renders microseconds as a short axis or table label: 850us, 1.2ms, 3s ("-" for NaN),
// spelled as summary.txt and the console spell them (us, not µs).
func USLabel(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	f := func(x float64, unit string) string {
		switch {
		case x >= 100:
			return jsnum.ToFixed(x, 0) + unit
		case x >= 10:
			return strings.TrimSuffix(jsnum.ToFixed(x, 1), ".0") + unit
		}
		return trimZeros(jsnum.ToFixed(x, 2)) + unit
	}
	switch {
	case v < 1000:
		return f(v, "us")
	case v < 1e6:
		return f(v/1e3, "ms")
	}
	return f(v/1e6, "s")
}

// trimZeros drops trailing zeros after the point, and the point when nothing follows it
// (what svgchart.js did with a regexp): 1.50 → 1.5, 2.00 → 2, 0.00 → 0.
func trimZeros(s string) string {
	t := strings.TrimRight(s, "0")
	if t == s {
		return s
	}
	if strings.HasSuffix(t, ".") {
		return t[:len(t)-1]
	}
	if !strings.Contains(t, ".") { // 100 → "1": the regexp only ever eats zeros after a dot here
		return s
	}
	return t
}

// Nines maps a quantile (0…1) to the percentile axis: -log10(1 - q), 99.99999% at most.
func Nines(q float64) float64 { return -jsnum.Log10(math.Max(1-q, 1e-7)) }

// PctLabel names a point of the percentile axis: 0%, 90%, 99.99%.
func PctLabel(x float64) string {
	if x <= 0 {
		return "0%"
	}
	q := 1 - math.Pow(10, -x)
	return jsnum.ToFixed(q*100, max(0, int(math.Floor(x+0.5))-2)) + "%"
}

type tick struct {
	v     float64
	label string
}

type axis struct {
	lo, hi float64
	log    bool
	ticks  []tick
}

type frame struct {
	sx, sy func(float64) float64
	parts  strings.Builder
}

func newFrame(c Chart, xs, ys axis) *frame {
	pw, ph := chartW-marginL-marginR, chartH-marginT-marginB
	f := &frame{}
	xr := xs.hi - xs.lo
	if xr == 0 {
		xr = 1
	}
	f.sx = func(x float64) float64 { return marginL + float64(float64((x-xs.lo)/xr)*pw) }
	if ys.log {
		llo := jsnum.Log10(ys.lo)
		lr := jsnum.Log10(ys.hi) - llo
		if lr == 0 {
			lr = 1
		}
		f.sy = func(y float64) float64 {
			return marginT + ph - float64(float64((jsnum.Log10(math.Max(y, ys.lo))-llo)/lr)*ph)
		}
	} else {
		yr := ys.hi - ys.lo
		if yr == 0 {
			yr = 1
		}
		f.sy = func(y float64) float64 { return marginT + ph - float64(float64((y-ys.lo)/yr)*ph) }
	}
	b := &f.parts
	b.WriteString(`<rect class="plot" x="` + jsnum.String(marginL) + `" y="` + jsnum.String(marginT) + `" width="` + jsnum.String(pw) + `" height="` + jsnum.String(ph) + `"/>`)
	for _, band := range c.Bands {
		if band.To <= band.From {
			continue
		}
		x0, x1 := f.sx(math.Max(band.From, xs.lo)), f.sx(math.Min(band.To, xs.hi))
		b.WriteString(`<g class="band"><title>` + Esc(band.Label) + `</title><rect x="` + jsnum.Fmt1(x0) + `" y="` + jsnum.String(marginT) + `" width="` + jsnum.Fmt1(math.Max(x1-x0, 0)) + `" height="` + jsnum.String(ph) + `"/><text x="` + jsnum.Fmt1(x0+4) + `" y="` + jsnum.String(marginT+12) + `">` + Esc(band.Label) + `</text></g>`)
	}
	for _, ev := range c.Events {
		if ev.T < xs.lo || ev.T > xs.hi {
			continue
		}
		// Inline style: the event marker is drawn by no CSS rule of the page.
		x := jsnum.Fmt1(f.sx(ev.T))
		b.WriteString(`<g class="event"><title>` + Esc(ev.Label) + `</title><line x1="` + x + `" x2="` + x + `" y1="` + jsnum.String(marginT) + `" y2="` + jsnum.String(marginT+ph) + `" stroke="#d62728" stroke-width="2" stroke-dasharray="6 3"/><text x="` + x + `" y="` + jsnum.String(marginT+26) + `" fill="#d62728" font-size="11" text-anchor="middle">` + Esc(ev.Label) + `</text></g>`)
	}
	for _, t := range xs.ticks {
		x := jsnum.Fmt1(f.sx(t.v))
		b.WriteString(`<line class="grid" x1="` + x + `" x2="` + x + `" y1="` + jsnum.String(marginT) + `" y2="` + jsnum.String(marginT+ph) + `"/><text class="tick" x="` + x + `" y="` + jsnum.String(marginT+ph+16) + `" text-anchor="middle">` + Esc(t.label) + `</text>`)
	}
	for _, t := range ys.ticks {
		y := jsnum.Fmt1(f.sy(t.v))
		yv, _ := jsnum.Parse(y)
		b.WriteString(`<line class="grid" x1="` + jsnum.String(marginL) + `" x2="` + jsnum.String(marginL+pw) + `" y1="` + y + `" y2="` + y + `"/><text class="tick" x="` + jsnum.String(marginL-6) + `" y="` + jsnum.String(yv+4) + `" text-anchor="end">` + Esc(t.label) + `</text>`)
	}
	b.WriteString(`<text class="axis" x="` + jsnum.String(marginL+pw/2) + `" y="` + jsnum.String(chartH-8) + `" text-anchor="middle">` + Esc(c.XLabel) + `</text>`)
	b.WriteString(`<text class="axis" transform="translate(14 ` + jsnum.String(marginT+ph/2) + `) rotate(-90)" text-anchor="middle">` + Esc(c.YLabel) + `</text>`)
	b.WriteString(`<text class="title" x="` + jsnum.String(marginL) + `" y="18">` + Esc(c.Title) + `</text>`)
	return f
}

func seriesColor(s Series, i int) string {
	if s.Color != "" {
		return s.Color
	}
	return Palette[i%len(Palette)]
}

// seriesSVG draws one series; points and marks are already in axis units ([x, y]).
func seriesSVG(f *frame, s Series, i int, yFmt func(float64) string) string {
	color := seriesColor(s, i)
	var d strings.Builder
	n := 0
	for _, p := range s.Points {
		if math.IsNaN(p[0]) || math.IsInf(p[0], 0) || math.IsNaN(p[1]) || math.IsInf(p[1], 0) {
			continue
		}
		if n > 0 {
			d.WriteString(" L")
		} else {
			d.WriteString("M")
		}
		d.WriteString(jsnum.Fmt1(f.sx(p[0])) + " " + jsnum.Fmt1(f.sy(p[1])))
		n++
	}
	if n == 0 {
		return ""
	}
	dash := ""
	if s.Dash != "" {
		dash = ` stroke-dasharray="` + Esc(s.Dash) + `"`
	}
	var marks strings.Builder
	for _, m := range s.Marks {
		if math.IsNaN(m.Q) || math.IsNaN(m.V) || math.IsInf(m.V, 0) {
			continue
		}
		marks.WriteString(`<circle cx="` + jsnum.Fmt1(f.sx(m.Q)) + `" cy="` + jsnum.Fmt1(f.sy(m.V)) + `" r="3.5" fill="` + Esc(color) + `"><title>` + Esc(s.Name+" "+m.Label+": "+yFmt(m.V)) + `</title></circle>`)
	}
	width := s.Width
	if width == 0 {
		width = 2
	}
	op := ""
	if s.Opacity != 0 {
		op = ` stroke-opacity="` + jsnum.String(s.Opacity) + `"`
	}
	return `<g class="series" data-series="` + Esc(s.Name) + `"><title>` + Esc(s.Name) + `</title><path d="` + d.String() + `" fill="none" stroke="` + Esc(color) + `" stroke-width="` + jsnum.String(width) + `"` + op + dash + `/>` + marks.String() + `</g>`
}

func legend(series []Series) string {
	var b strings.Builder
	b.WriteString(`<div class="legend">`)
	for i, s := range series {
		style := ""
		if s.Dash != "" {
			style = ";border-top-style:dashed"
		}
		b.WriteString(`<span class="legend-item" data-series="` + Esc(s.Name) + `" title="click to hide or show"><i style="border-color:` + Esc(seriesColor(s, i)) + style + `"></i>` + Esc(s.Name) + `</span>`)
	}
	b.WriteString(`</div>`)
	return b.String()
}

func wrap(kind string, c Chart, f *frame, series []Series, extra string, yFmt func(float64) string) string {
	var b strings.Builder
	b.WriteString(`<figure class="chart" data-chart="` + kind + `"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ` + jsnum.String(chartW) + ` ` + jsnum.String(chartH) + `" width="` + jsnum.String(chartW) + `" height="` + jsnum.String(chartH) + `" role="img" aria-label="` + Esc(c.Title) + `">`)
	b.WriteString(f.parts.String())
	b.WriteString(extra)
	for i, s := range series {
		b.WriteString(seriesSVG(f, s, i, yFmt))
	}
	b.WriteString(`</svg>` + legend(series) + `</figure>`)
	return b.String()
}

// withPoints drops the series that have no point (they get neither a line nor a legend).
func withPoints(ss []Series) []Series {
	var out []Series
	for _, s := range ss {
		if len(s.Points) > 0 {
			out = append(out, s)
		}
	}
	return out
}
