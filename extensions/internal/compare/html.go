package compare

import (
	"fmt"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/report"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// HTML renders compare.html: the runs, the comparison table, and per cell one chart with
// every run's end-to-end (solid) and publish (dashed) latency by percentile overlaid.
// Self-contained: inline CSS and SVG, no network.
func HTML(runs []*results.Run, gate []Finding, tol float64) string {
	var b strings.Builder
	esc := report.Esc
	b.WriteString(report.PageHead("mqbench comparison", "mqbench comparison", "", "", pageCSS) + `<ol>`)
	for i, r := range runs {
		fmt.Fprintf(&b, `<li><i class="swatch" style="background:%s"></i><b>%s</b>: %s %s%s, run %s, %s <code>%s</code></li>`,
			palette[i%len(palette)], esc(r.Label), esc(r.Broker.Type), esc(r.Broker.URL), esc(serverOf(r)), esc(r.RunID), esc(r.FinishedAt), esc(r.Dir))
	}
	b.WriteString(`</ol><p class="muted">Latency by percentile on a logarithmic "nines" axis, from each run's HdrHistogram (.hgrm). Changes are against the first run that has the cell.</p></header>`)
	if gate != nil {
		n := len(Regressions(gate))
		cls, verdict := "pass", "no regression"
		if n > 0 {
			cls, verdict = "fail", fmt.Sprintf("%d regression(s)", n)
		}
		fmt.Fprintf(&b, `<section><h2>regression gate <span class="badge %s">%s</span> <small>tolerance %s</small></h2><pre class="gate">`, cls, verdict, Percent(tol))
		for _, f := range gate {
			fmt.Fprintf(&b, "%s\n", esc(f.Line(tol)))
		}
		b.WriteString(`</pre></section>`)
	}
	b.WriteString(`<section><h2>table</h2><table><thead><tr>`)
	for _, h := range tableHead {
		fmt.Fprintf(&b, "<th>%s</th>", esc(h))
	}
	b.WriteString(`</tr></thead><tbody>`)
	for _, row := range Rows(runs) {
		b.WriteString("<tr>")
		for i, c := range row {
			cls := ""
			if i == len(row)-1 && strings.HasPrefix(c, "FAIL") {
				cls = ` class="bad"`
			}
			fmt.Fprintf(&b, "<td%s>%s</td>", cls, esc(c))
		}
		b.WriteString("</tr>")
	}
	b.WriteString(`</tbody></table></section>`)
	b.WriteString(`<section><h2>latency by percentile, per cell <small>e2e solid, publish dashed; one color per run</small></h2><div class="charts">`)
	for _, id := range CellIDs(runs) {
		var ss []report.Series
		shapes := map[string]bool{}
		var shape string
		for i, r := range runs {
			c := r.Cell(id)
			if c == nil {
				continue
			}
			shape = fmt.Sprintf("%s at %s msg/s", c.SizeLabel, c.RateLabel())
			shapes[shape] = true
			color := palette[i%len(palette)]
			ss = append(ss, curve(r, id, "e2e", r.Label+" e2e", color, ""), curve(r, id, "publish", r.Label+" publish", color, "6 4"))
		}
		title := id + ": " + shape
		if len(shapes) > 1 {
			title = id + ": cells differ in size or rate (see the table)"
		}
		b.WriteString(report.PercentileChart(report.Chart{Title: title, Series: ss}))
	}
	b.WriteString(`</div></section>`)
	b.WriteString(`<script>` + report.ChartScript + `</script></body></html>` + "\n")
	return b.String()
}

// pageCSS is what compare.html styles beyond the report pages' CSS (report.PageHead): the
// runs' swatches, the gate's lines, and a table of figures aligned right after its names.
const pageCSS = `header ol{margin:4px 0;padding-left:22px}
.swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:6px;vertical-align:middle}
pre.gate{background:#fff;border:1px solid #e0e0e4;padding:8px 12px;font-size:12px;overflow:auto}
th,td{text-align:right;white-space:nowrap}td:nth-child(-n+4),th:nth-child(-n+4){text-align:left}
`
