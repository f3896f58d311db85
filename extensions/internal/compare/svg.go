package compare

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// The overlay chart mirrors lib/svgchart.js (report.html): latency by percentile on the
// "nines" axis, x = -log10(1 - q) (50% -> 0.3, 90% -> 1, … 99.9999% -> 6), y log scale.
// Each series is a <g class="series" data-series="NAME"> with a <title> and a <path>.

var palette = []string{"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"}

const (
	chartW, chartH                     = 640.0, 360.0
	marginT, marginR, marginB, marginL = 30.0, 34.0, 46.0, 70.0
)

type series struct {
	Name   string
	Color  string
	Dash   string
	Points [][2]float64 // [q, µs]
}

func nines(q float64) float64 { return -math.Log10(math.Max(1-q, 1e-7)) }

func pctLabel(x float64) string {
	if x <= 0 {
		return "0%"
	}
	q := (1 - math.Pow(10, -x)) * 100
	return fmt.Sprintf("%.*f%%", max(0, int(math.Round(x))-2), q)
}

func usLabel(v float64) string {
	trim := func(x float64, unit string) string {
		s := fmt.Sprintf("%.2f", x)
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		return s + unit
	}
	switch {
	case v < 1000:
		return trim(v, "µs")
	case v < 1e6:
		return trim(v/1e3, "ms")
	}
	return trim(v/1e6, "s")
}

func percentileSVG(title string, ss []series) string {
	lo, hi := math.Inf(1), 0.0
	for _, s := range ss {
		for _, p := range s.Points {
			if p[1] > 0 {
				lo, hi = math.Min(lo, p[1]), math.Max(hi, p[1])
			}
		}
	}
	if hi == 0 {
		lo, hi = 1, 10
	}
	lo = math.Pow(10, math.Floor(math.Log10(lo)))
	hi = math.Pow(10, math.Ceil(math.Log10(hi*1.0001)))
	xMax := 6.0 // 99.9999% at least; further when a run resolves it
	for _, s := range ss {
		for _, p := range s.Points {
			xMax = math.Max(xMax, math.Ceil(nines(p[0])-1e-9))
		}
	}
	pw, ph := chartW-marginL-marginR, chartH-marginT-marginB
	sx := func(x float64) float64 { return marginL + x/xMax*pw }
	sy := func(y float64) float64 {
		y = math.Max(y, lo)
		return marginT + ph - (math.Log10(y)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))*ph
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<figure class="chart" data-chart="percentile"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s">`, chartW, chartH, chartW, chartH, html.EscapeString(title))
	fmt.Fprintf(&b, `<rect class="plot" x="%.0f" y="%.0f" width="%.0f" height="%.0f"/>`, marginL, marginT, pw, ph)
	xs := []float64{0, math.Log10(2)}
	for x := 1.0; x <= xMax; x++ {
		xs = append(xs, x)
	}
	for _, x := range xs {
		fmt.Fprintf(&b, `<line class="grid" x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f"/><text class="tick" x="%.1f" y="%.0f" text-anchor="middle">%s</text>`, sx(x), sx(x), marginT, marginT+ph, sx(x), marginT+ph+16, pctLabel(x))
	}
	decades := math.Log10(hi) - math.Log10(lo)
	for e := math.Log10(lo); e <= math.Log10(hi)+1e-9; e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v > hi*1.001 || (decades > 3 && m != 1) {
				continue
			}
			fmt.Fprintf(&b, `<line class="grid" x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f"/><text class="tick" x="%.0f" y="%.1f" text-anchor="end">%s</text>`, marginL, marginL+pw, sy(v), sy(v), marginL-6, sy(v)+4, usLabel(v))
		}
	}
	fmt.Fprintf(&b, `<text class="axis" x="%.0f" y="%.0f" text-anchor="middle">percentile</text>`, marginL+pw/2, chartH-8)
	fmt.Fprintf(&b, `<text class="axis" transform="translate(14 %.0f) rotate(-90)" text-anchor="middle">latency</text>`, marginT+ph/2)
	fmt.Fprintf(&b, `<text class="title" x="%.0f" y="18">%s</text>`, marginL, html.EscapeString(title))
	var legend strings.Builder
	for _, s := range ss {
		if len(s.Points) == 0 {
			continue
		}
		var d strings.Builder
		for i, p := range s.Points {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%.1f %.1f ", cmd, sx(nines(p[0])), sy(p[1]))
		}
		dash := ""
		if s.Dash != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, s.Dash)
		}
		name := html.EscapeString(s.Name)
		last := s.Points[len(s.Points)-1]
		fmt.Fprintf(&b, `<g class="series" data-series="%s"><title>%s</title><path d="%s" fill="none" stroke="%s" stroke-width="2"%s/><circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s max: %s</title></circle></g>`,
			name, name, strings.TrimSpace(d.String()), s.Color, dash, sx(nines(last[0])), sy(last[1]), s.Color, name, usLabel(last[1]))
		style := ""
		if s.Dash != "" {
			style = ";border-top-style:dashed"
		}
		fmt.Fprintf(&legend, `<span class="legend-item" data-series="%s" title="click to hide or show"><i style="border-color:%s%s"></i>%s</span>`, name, s.Color, style, name)
	}
	fmt.Fprintf(&b, `</svg><div class="legend">%s</div></figure>`, legend.String())
	return b.String()
}

// curve is a run's distribution of one kind for a cell: the .hgrm rows, or the summary's
// percentiles when the file is missing, ending at the highest resolvable quantile (max).
func (r *Run) curve(cell, kind string) [][2]float64 {
	c := r.Cell(cell)
	if c == nil {
		return nil
	}
	st, _ := c.Stats(kind)
	if st.Count == 0 {
		return nil
	}
	qmax := 1 - 1/float64(st.Count)
	var pts [][2]float64
	if d, ok := r.Dists[cell][kind]; ok && len(d.Points) > 0 {
		for _, p := range d.Points {
			if p.Q <= qmax+1e-12 {
				pts = append(pts, [2]float64{p.Q, p.Value})
			}
		}
	} else {
		pts = append(pts, [2]float64{0, st.Min})
		for _, q := range []float64{0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999, 0.999999} {
			if v, ok := st.P[summaryKeys[q]]; ok && q <= qmax+1e-12 {
				pts = append(pts, [2]float64{q, v})
			}
		}
	}
	return append(pts, [2]float64{qmax, st.Max})
}
