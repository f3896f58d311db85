package results

import (
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// BacklogDrain is a build-and-drain cell's account (scenario `backlog: N`).
type BacklogDrain struct {
	Target  int64 `json:"target"`  // the backlog asked for
	Reached bool  `json:"reached"` // it built up before the producers stopped
	Peak    int64 `json:"peak"`    // the highest backlog seen while building
	// PausedAtS: when consumers were held back, seconds since the cell started (its
	// warm-up's end); BuildS: how long until they were let go.
	PausedAtS float64 `json:"paused_at_s"`
	BuildS    float64 `json:"build_s"`
	// Drained: the backlog fell back to 1 % of the target (at least 1) before the cell
	// ended, DrainS after the consumers were let go.
	Drained bool    `json:"drained"`
	DrainS  float64 `json:"drain_s"`
	// DrainRate is what the consumers received per second while draining (the producers
	// still sending); NetDrainRate is the peak backlog over DrainS.
	DrainRate    float64 `json:"drain_rate"`
	NetDrainRate float64 `json:"net_drain_rate"`
	// PublishLatency by phase: building, draining, drained (µs).
	PublishLatency map[string]hist.Stats `json:"publish_latency_us"`
}

// drainRows is the console table of the build-and-drain cells (header only when none).
func drainRows(s *Summary) [][]string {
	rows := [][]string{{"cell", "target", "peak", "reached", "build s", "drained", "drain s", "recv/s draining", "net drain/s", "publish p99 building", "draining", "drained"}}
	for i := range s.Cells {
		c := &s.Cells[i]
		b := c.BacklogDrain
		if b == nil {
			continue
		}
		p99 := func(phase string) string {
			st := b.PublishLatency[phase]
			return orDash(st.Count > 0, func() string { return us(pct(st, "p99")) })
		}
		rows = append(rows, []string{c.ID, itoa(b.Target), itoa(b.Peak), yesNo(b.Reached), num(b.BuildS, 1),
			yesNo(b.Drained), orDash(b.Drained, func() string { return num(b.DrainS, 1) }),
			orDash(b.Drained, func() string { return num(b.DrainRate, 0) }), orDash(b.Drained, func() string { return num(b.NetDrainRate, 0) }),
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
func drainHTML(c *Cell) string {
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
	state := `drained in ` + num(b.DrainS, 1) + ` s: consumers received ` + num(b.DrainRate, 0) + `/s while the producers went on, the backlog fell ` + num(b.NetDrainRate, 0) + `/s`
	if !b.Drained {
		state = `<b class="bad">not drained</b> before the cell ended`
	}
	return `<h3>backlog build and drain</h3>
<p class="drain">consumers held back ` + num(b.PausedAtS, 1) + ` s into the cell for ` + num(b.BuildS, 1) + ` s, until ` + itoa(b.Peak) + ` messages waited (target ` + itoa(b.Target) + `, ` + map[bool]string{true: "reached", false: "not reached: the producers stopped first"}[b.Reached] + `); ` + state + `.</p>
<table class="num"><thead><tr><th>publish latency</th><th>count</th><th>p50</th><th>p99</th><th>max</th></tr></thead><tbody>` + rows.String() + `</tbody></table>`
}
