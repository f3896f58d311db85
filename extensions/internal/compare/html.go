package compare

import (
	"fmt"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

// HTML renders compare.html: the runs, the comparison table, and per cell one chart with
// every run's end-to-end (solid) and publish (dashed) latency by percentile overlaid.
// Self-contained: inline CSS and SVG, no network.
func HTML(runs []*results.Run, gate []Finding, tol float64) string {
	var b strings.Builder
	esc := results.Esc
	b.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">` + results.CSPMeta + `<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mqbench comparison</title><style>` + pageCSS + results.ChartCSS + `</style></head><body>
<header><h1>mqbench comparison</h1><ol>`)
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
		var ss []results.Series
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
		b.WriteString(results.PercentileChart(results.Chart{Title: title, Series: ss}))
	}
	b.WriteString(`</div></section>`)
	b.WriteString(`<script>` + results.ChartScript + `</script></body></html>` + "\n")
	return b.String()
}

const pageCSS = `
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1b1b1f;background:#f6f7f9;margin:0;padding:20px 24px 40px}
h1{font-size:22px;margin:0 0 6px}h2{font-size:18px;margin:24px 0 8px}h2 small{font-weight:normal;color:#666;font-size:13px;margin-left:6px}
header ol{margin:4px 0;padding-left:22px}.muted{color:#888}code{font:12px ui-monospace,Menlo,Consolas,monospace}
.swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:6px;vertical-align:middle}
.badge{display:inline-block;padding:1px 9px;border-radius:10px;font-size:12px;font-weight:600;vertical-align:middle}
.badge.pass{background:#e3f4e8;color:#1d6b34}.badge.fail{background:#fde4e4;color:#a11d1d}
pre.gate{background:#fff;border:1px solid #e0e0e4;padding:8px 12px;font-size:12px;overflow:auto}
table{border-collapse:collapse;background:#fff;font-size:13px}th,td{border:1px solid #e0e0e4;padding:3px 9px;text-align:right;white-space:nowrap}
th{background:#f0f1f4}td:nth-child(-n+4),th:nth-child(-n+4){text-align:left}
.charts{display:flex;flex-wrap:wrap;gap:14px}td.bad{background:#fde4e4;color:#a11d1d;font-weight:600}
`
