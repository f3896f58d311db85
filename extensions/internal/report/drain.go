package report

import (
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/jsnum"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// A build-and-drain cell (scenario `backlog: N`, results.BacklogDrain) in the console table and
// in report.html.

// drainRows is the console table of the build-and-drain cells (header only when none).
func drainRows(s *results.Summary) [][]string {
	rows := [][]string{{"cell", "target", "peak", "reached", "build s", "drained", "drain s", "recv/s draining", "net drain/s", "publish p99 building", "draining", "drained"}}
	for i := range s.Cells {
		c := &s.Cells[i]
		b := c.BacklogDrain
		if b == nil {
			continue
		}
		p99 := func(phase string) string {
			st := b.PublishLatency[phase]
			return orDash(st.Count > 0, func() string { return results.Micros(pct(st, "p99")) })
		}
		rows = append(rows, []string{c.ID, itoa(b.Target), itoa(b.Peak), yesNo(b.Reached), jsnum.Num(b.BuildS, 1),
			yesNo(b.Drained), orDash(b.Drained, func() string { return jsnum.Num(b.DrainS, 1) }),
			orDash(b.Drained, func() string { return jsnum.Num(b.DrainRate, 0) }), orDash(b.Drained, func() string { return jsnum.Num(b.NetDrainRate, 0) }),
			p99("building"), p99("draining"), p99("drained")})
	}
	return rows
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// drainHTML is a build-and-drain cell's section in report.html ("" for other cells).
func drainHTML(c *results.Cell) string {
	b := c.BacklogDrain
	if b == nil {
		return ""
	}
	var rows strings.Builder
	for _, phase := range []string{"building", "draining", "drained"} {
		st := b.PublishLatency[phase]
		rows.WriteString(`<tr><td>` + phase + `</td><td>` + itoa(st.Count) + `</td>`)
		for _, k := range []string{"p50", "p99"} {
			rows.WriteString(`<td>` + orDash(st.Count > 0, func() string { return USLabel(pct(st, k)) }) + `</td>`)
		}
		rows.WriteString(`<td>` + orDash(st.Count > 0, func() string { return USLabel(st.Max) }) + `</td></tr>`)
	}
	state := `drained in ` + jsnum.Num(b.DrainS, 1) + ` s: consumers received ` + jsnum.Num(b.DrainRate, 0) + `/s while the producers went on, the backlog fell ` + jsnum.Num(b.NetDrainRate, 0) + `/s`
	if !b.Drained {
		state = `<b class="bad">not drained</b> before the cell ended`
	}
	return `<h3>backlog build and drain</h3>
<p class="drain">consumers held back ` + jsnum.Num(b.PausedAtS, 1) + ` s into the cell for ` + jsnum.Num(b.BuildS, 1) + ` s, until ` + itoa(b.Peak) + ` messages waited (target ` + itoa(b.Target) + `, ` + map[bool]string{true: "reached", false: "not reached: the producers stopped first"}[b.Reached] + `); ` + state + `.</p>
<table class="num"><thead><tr><th>publish latency</th><th>count</th><th>p50</th><th>p99</th><th>max</th></tr></thead><tbody>` + rows.String() + `</tbody></table>`
}
