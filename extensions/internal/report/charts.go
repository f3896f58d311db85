package report

import (
	"math"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/jsnum"
)

// PercentileChart draws latency by percentile: series points are [quantile, µs], marks at
// quantiles; limits are threshold markers. The y range covers the data, and the thresholds
// within three decades of it; a threshold further off (p(99) < 1ns) is pinned to the
// chart's edge rather than squash the curves. The x axis reaches 99.9999% at least, further
// when a series resolves it.
func PercentileChart(c Chart) string {
	if c.XLabel == "" {
		c.XLabel = "percentile"
	}
	if c.YLabel == "" {
		c.YLabel = "latency"
	}
	series := withPoints(c.Series)
	var data []float64
	for _, s := range series {
		for _, p := range s.Points {
			if p[1] > 0 && !math.IsInf(p[1], 0) {
				data = append(data, p[1])
			}
		}
	}
	dlo, dhi := 1.0, 10.0
	if len(data) > 0 {
		dlo, dhi = minOf(data), maxOf(data)
	}
	pos := data
	for _, l := range c.Limits {
		if l.US >= dlo/1000 && l.US <= dhi*1000 {
			pos = append(pos, l.US)
		}
	}
	lo, hi := 1.0, 10.0
	if len(pos) > 0 {
		lo = math.Pow10(int(math.Floor(jsnum.Log10(minOf(pos)))))
		hi = math.Pow10(int(math.Ceil(jsnum.Log10(maxOf(pos) * 1.0001))))
	}
	far := 0.0
	for _, s := range series {
		for _, p := range s.Points {
			far = math.Max(far, Nines(p[0]))
		}
	}
	xMax := math.Max(6, math.Ceil(far-1e-9))
	xt := []tick{{0, PctLabel(0)}, {jsnum.Log10(2), PctLabel(jsnum.Log10(2))}}
	for x := 1.0; x <= xMax; x++ {
		xt = append(xt, tick{x, PctLabel(x)})
	}
	vs := logTicks(lo, hi)
	var yt []tick
	for _, v := range vs {
		if len(vs) <= 9 || strings.HasPrefix(jsnum.String(v), "1") {
			yt = append(yt, tick{v, USLabel(v)})
		}
	}
	f := newFrame(c, axis{lo: 0, hi: xMax, ticks: xt}, axis{lo: lo, hi: hi, log: true, ticks: yt})
	mapped := make([]Series, len(series))
	for i, s := range series {
		m := s
		m.Points = make([][2]float64, len(s.Points))
		for j, p := range s.Points {
			m.Points[j] = [2]float64{Nines(p[0]), p[1]}
		}
		m.Marks = make([]Mark, len(s.Marks))
		for j, k := range s.Marks {
			m.Marks[j] = Mark{Q: Nines(k.Q), V: k.V, Label: k.Label}
		}
		mapped[i] = m
	}
	// A threshold is a short bar at its percentile and limit (green pass, red FAIL); labels
	// alternate above and below so neighbours do not overlap.
	var limits strings.Builder
	for i, l := range c.Limits {
		if math.IsNaN(l.Q) || math.IsNaN(l.US) {
			continue
		}
		x := f.sx(Nines(l.Q))
		off := ""
		if l.US < lo {
			off = " (below the scale)"
		} else if l.US > hi {
			off = " (above the scale)"
		}
		y := f.sy(math.Min(math.Max(l.US, lo), hi))
		cls, verdict := "limit fail", "FAIL"
		if l.OK {
			cls, verdict = "limit ok", "pass"
		}
		ty := y - 6
		if i%2 == 1 {
			ty = y + 15
		}
		if ty < marginT+12 { // not over the title
			ty = y + 15
		}
		if ty > chartH-marginB-2 {
			ty = y - 6
		}
		limits.WriteString(`<g class="` + cls + `" data-limit="` + Esc(l.Label) + `"><title>` + Esc(l.Label+": "+verdict+off) + `</title>` +
			`<line x1="` + jsnum.Fmt1(x-12) + `" x2="` + jsnum.Fmt1(x+12) + `" y1="` + jsnum.Fmt1(y) + `" y2="` + jsnum.Fmt1(y) + `"/>` +
			`<line x1="` + jsnum.Fmt1(x) + `" x2="` + jsnum.Fmt1(x) + `" y1="` + jsnum.Fmt1(y-5) + `" y2="` + jsnum.Fmt1(y+5) + `"/>` +
			`<text x="` + jsnum.Fmt1(x-10) + `" y="` + jsnum.Fmt1(ty) + `">` + Esc(l.Label+off) + `</text></g>`)
	}
	return wrap("percentile", c, f, mapped, limits.String(), USLabel)
}

// TimeChart draws values over time: series points are [seconds, value], bands shade phases.
func TimeChart(c Chart) string {
	series := withPoints(c.Series)
	xsMax, ysMax := 1.0, 1.0
	for _, s := range series {
		for _, p := range s.Points {
			xsMax, ysMax = math.Max(xsMax, p[0]), math.Max(ysMax, p[1])
		}
	}
	for _, b := range c.Bands {
		xsMax = math.Max(xsMax, b.To)
	}
	ysMax *= 1.1
	var xt, yt []tick
	for _, v := range linTicks(xsMax) {
		xt = append(xt, tick{v, jsnum.String(v) + "s"})
	}
	yFmt := jsnum.String
	if c.YFormat != nil {
		yFmt = c.YFormat
	}
	yv := linTicks(ysMax)
	for _, v := range yv {
		yt = append(yt, tick{v, yFmt(v)})
	}
	yhi := ysMax
	if last := yv[len(yv)-1]; last >= ysMax {
		yhi = last
	}
	f := newFrame(c, axis{lo: 0, hi: xsMax, ticks: xt}, axis{lo: 0, hi: yhi, ticks: yt})
	return wrap("time", c, f, series, "", yFmt)
}

// logTicks are 1, 2 and 5 times the powers of ten from lo to hi.
func logTicks(lo, hi float64) []float64 {
	var out []float64
	for e := int(math.Floor(jsnum.Log10(lo))); e <= int(math.Ceil(jsnum.Log10(hi))); e++ {
		for _, m := range []float64{1, 2, 5} {
			if v := m * math.Pow10(e); v >= lo*0.999 && v <= hi*1.001 {
				out = append(out, v)
			}
		}
	}
	return out
}

// linTicks are round steps (1, 2 or 5 times a power of ten) from 0 to hi, about five.
func linTicks(hi float64) []float64 {
	if !(hi > 0) || math.IsInf(hi, 0) {
		return []float64{0}
	}
	raw := hi / 5
	p := math.Pow10(int(math.Floor(jsnum.Log10(raw))))
	step := 10 * p
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	var out []float64
	for v := 0.0; v <= hi*1.0001; v += step {
		out = append(out, v)
	}
	return out
}

func minOf(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = math.Min(m, x)
	}
	return m
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

// ChartCSS styles the charts (report.html and compare.html embed it).
const ChartCSS = `
figure.chart{margin:0;display:block;width:100%;box-sizing:border-box;background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:6px 8px 8px}
figure.chart svg{display:block;width:100%;height:auto;max-height:460px;font:11px system-ui,-apple-system,'Segoe UI',sans-serif}
figure.chart .plot{fill:#fcfcfd;stroke:#ccc}
figure.chart .grid{stroke:#e9e9ee;stroke-width:1}
figure.chart .tick{fill:#555}
figure.chart .axis{fill:#333;font-size:12px}
figure.chart .title{fill:#111;font-size:13px;font-weight:600}
figure.chart .band rect{fill:#f0f0f0;opacity:.8}
figure.chart .band text{fill:#888;font-size:10px}
figure.chart .series.hidden{display:none}
figure.chart .limit line{stroke-width:2}
figure.chart .limit.ok line{stroke:#2a9d4b}
figure.chart .limit.fail line{stroke:#c62828}
figure.chart .limit text{font-size:10px;fill:#333}
.legend{font:12px system-ui,sans-serif;margin-top:4px;display:flex;flex-wrap:wrap;gap:4px 14px;max-width:640px}
.legend-item{cursor:pointer;user-select:none;white-space:nowrap}
.legend-item i{display:inline-block;width:18px;border-top:3px solid;margin-right:5px;vertical-align:middle}
.legend-item.off{opacity:.35}
`

// ChartScript makes legend entries toggle their series; when it has run, the page's root
// carries data-mq-ready="<number of drawn series>" (what a headless browser test looks for).
const ChartScript = `(function(){
  document.querySelectorAll('figure.chart').forEach(function(fig){
    fig.querySelectorAll('.legend-item').forEach(function(item){
      item.addEventListener('click', function(){
        var name = item.getAttribute('data-series'), off = item.classList.toggle('off');
        fig.querySelectorAll('g.series').forEach(function(g){ if (g.getAttribute('data-series') === name) g.classList.toggle('hidden', off); });
      });
    });
  });
  document.documentElement.setAttribute('data-mq-ready', String(document.querySelectorAll('g.series path').length));
})();`
