package compare

import (
	"github.com/mqbench/xk6-mqbench/internal/report"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// The overlay charts are report.PercentileChart (the charts of report.html): latency by
// percentile on the "nines" axis, one color per run.

// palette colors the runs, in the order they are given.
var palette = []string{"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"}

// curve is a run's distribution of one kind for a cell as a chart series: the .hgrm rows, or
// the summary's percentiles when the file is missing, ending at the highest resolvable
// quantile, at max (marked). No points when the run did not record it.
func curve(r *results.Run, cell, kind, name, color, dash string) report.Series {
	s := report.Series{Name: name, Color: color, Dash: dash}
	c := r.Cell(cell)
	if c == nil {
		return s
	}
	st, _ := c.Stats(kind)
	s.Points, _ = report.Curve(st, r.Dists[cell][kind])
	if n := len(s.Points); n > 0 {
		s.Marks = []report.Mark{{Q: s.Points[n-1][0], V: s.Points[n-1][1], Label: "max"}}
	}
	return s
}
