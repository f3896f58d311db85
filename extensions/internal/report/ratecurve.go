package report

import (
	"sort"

	"github.com/mqbench/xk6-mqbench/internal/jsnum"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// The latency-vs-throughput curve of an ordinary rate matrix: the cells of one size at
// several fixed rates are points of the curve a capacity search draws (k6 x mqbench search),
// end-to-end p50 and p99 against the rate the consumers received.

// throughputCurves draws, for every size with at least two fixed-rate cells that received
// messages, e2e p50 (dashed) and p99 against the cell's receiver rate; "" when no size has two.
func throughputCurves(s *results.Summary) string {
	bySize := map[string][]*results.Cell{}
	var sizes []string
	for i := range s.Cells {
		c := &s.Cells[i]
		if c.Closed() || c.E2ELatency.Count == 0 || !(c.ReceiverRate > 0) {
			continue
		}
		if bySize[c.SizeLabel] == nil {
			sizes = append(sizes, c.SizeLabel)
		}
		bySize[c.SizeLabel] = append(bySize[c.SizeLabel], c)
	}
	sort.SliceStable(sizes, func(i, j int) bool { return bySize[sizes[i]][0].Size < bySize[sizes[j]][0].Size })
	var series []Series
	var verdicts []Verdict
	n := 0
	for _, size := range sizes {
		cells := bySize[size]
		if len(cells) < 2 {
			continue
		}
		sort.SliceStable(cells, func(i, j int) bool { return cells[i].ReceiverRate < cells[j].ReceiverRate })
		color := Palette[n%len(Palette)]
		n++
		p50 := Series{Name: size + " e2e p50", Color: color, Dash: "6 4"}
		p99 := Series{Name: size + " e2e p99", Color: color}
		for _, c := range cells {
			x := c.ReceiverRate
			at := c.ID + " (" + c.RatePerSecond() + ", received " + jsnum.Num(x, 0) + "/s)"
			if v := pct(c.E2ELatency, "p50"); v > 0 {
				p50.Points = append(p50.Points, [2]float64{x, v})
				p50.Marks = append(p50.Marks, Mark{Q: x, V: v, Label: at + " p50"})
			}
			if v := pct(c.E2ELatency, "p99"); v > 0 {
				p99.Points = append(p99.Points, [2]float64{x, v})
				p99.Marks = append(p99.Marks, Mark{Q: x, V: v, Label: at + " p99"})
				ok, verdict := cellOK(s, c), "FAIL"
				if ok {
					verdict = "pass"
				}
				verdicts = append(verdicts, Verdict{X: x, Y: v, OK: ok, Label: at + ": thresholds " + verdict})
			}
		}
		series = append(series, p99, p50)
	}
	if len(series) == 0 {
		return ""
	}
	return `<div class="charts">` + ThroughputChart(Chart{Title: "end-to-end latency vs throughput, by size", Series: series}, verdicts) + `</div>`
}
