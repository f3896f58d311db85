package report

import (
	"math"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/jsnum"
)

// Verdict is a point of an XY chart drawn as a verdict: a green ring when OK, a red cross
// when not, with a tooltip (capacity-search steps on a latency-vs-throughput chart).
type Verdict struct {
	X, Y  float64
	OK    bool
	Label string
}

// ThroughputChart draws latency against throughput: series points are [messages per second,
// µs] (linear x from 0, logarithmic y), marks at [rate, µs]; verdicts mark points passed or
// failed. Points are drawn in the order given (sort them by rate).
func ThroughputChart(c Chart, verdicts []Verdict) string {
	if c.XLabel == "" {
		c.XLabel = "throughput received (msg/s)"
	}
	if c.YLabel == "" {
		c.YLabel = "end-to-end latency"
	}
	series := withPoints(c.Series)
	xsMax := 1.0
	var ys []float64
	add := func(x, y float64) {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			xsMax = math.Max(xsMax, x)
		}
		if y > 0 && !math.IsInf(y, 0) {
			ys = append(ys, y)
		}
	}
	for _, s := range series {
		for _, p := range s.Points {
			add(p[0], p[1])
		}
	}
	for _, v := range verdicts {
		add(v.X, v.Y)
	}
	lo, hi := 1.0, 10.0
	if len(ys) > 0 {
		lo = math.Pow10(int(math.Floor(jsnum.Log10(minOf(ys)))))
		hi = math.Pow10(int(math.Ceil(jsnum.Log10(maxOf(ys) * 1.0001))))
	}
	if hi <= lo {
		hi = lo * 10
	}
	xsMax *= 1.05
	xv := linTicks(xsMax)
	var xt []tick
	for _, v := range xv {
		xt = append(xt, tick{v, RateLabel(v)})
	}
	xhi := xsMax
	if last := xv[len(xv)-1]; last >= xsMax {
		xhi = last
	}
	var yt []tick
	vs := logTicks(lo, hi)
	for _, v := range vs {
		if len(vs) <= 9 || strings.HasPrefix(jsnum.String(v), "1") {
			yt = append(yt, tick{v, USLabel(v)})
		}
	}
	f := newFrame(c, axis{lo: 0, hi: xhi, ticks: xt}, axis{lo: lo, hi: hi, log: true, ticks: yt})
	var extra strings.Builder
	for _, v := range verdicts {
		if math.IsNaN(v.X) || math.IsNaN(v.Y) || !(v.Y > 0) {
			continue
		}
		x, y := f.sx(v.X), f.sy(math.Min(math.Max(v.Y, lo), hi))
		if v.OK {
			extra.WriteString(`<g class="verdict ok"><title>` + Esc(v.Label) + `</title><circle cx="` + jsnum.Fmt1(x) + `" cy="` + jsnum.Fmt1(y) + `" r="6.5" fill="none" stroke="#2a9d4b" stroke-width="2"/></g>`)
			continue
		}
		extra.WriteString(`<g class="verdict fail"><title>` + Esc(v.Label) + `</title><path d="M` + jsnum.Fmt1(x-6) + " " + jsnum.Fmt1(y-6) + " L" + jsnum.Fmt1(x+6) + " " + jsnum.Fmt1(y+6) + " M" + jsnum.Fmt1(x-6) + " " + jsnum.Fmt1(y+6) + " L" + jsnum.Fmt1(x+6) + " " + jsnum.Fmt1(y-6) + `" stroke="#c62828" stroke-width="2.5"/></g>`)
	}
	// Marks sit at [rate, µs]: the series' own marks carry the rate in Q.
	return wrap("throughput", c, f, series, extra.String(), USLabel)
}

// RateLabel renders messages per second as a short axis label: 500, 20k, 1.5M.
func RateLabel(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return trimZeros(jsnum.ToFixed(v/1e6, 2)) + "M"
	case a >= 1e3:
		return trimZeros(jsnum.ToFixed(v/1e3, 1)) + "k"
	}
	return trimZeros(jsnum.ToFixed(v, 0))
}
