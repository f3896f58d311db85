package report

import (
	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// chartPcts are the percentiles reports mark on charts and list in their tables.
var chartPcts = func() []hist.Percentile {
	var out []hist.Percentile
	for _, p := range hist.Percentiles {
		if p.Key != "p95" { // between p90 and p99 it would crowd the marks
			out = append(out, p)
		}
	}
	return out
}()

// Curve is a latency distribution as chart points [quantile, µs]: the .hgrm rows (its final
// 100% row left out), or the summary's percentiles (from min) when there are none, ending
// where the sample count stops resolving quantiles (1 - 1/count) at max. Marks are the
// summary's percentiles up to there, and max. Nothing when no sample was recorded.
func Curve(st hist.Stats, d hist.Distribution) (points [][2]float64, marks []Mark) {
	if st.Count == 0 {
		return nil, nil
	}
	for _, p := range d.Points {
		if p.Q < 1 {
			points = append(points, [2]float64{p.Q, p.Value})
		}
	}
	if len(points) == 0 {
		points = append(points, [2]float64{0, st.Min})
		for _, p := range chartPcts {
			if v, ok := st.P[p.Key]; ok {
				points = append(points, [2]float64{p.Q / 100, v})
			}
		}
	}
	qmax := 1 - 1/float64(st.Count)
	kept := points[:0]
	for _, p := range points {
		if p[0] <= qmax+1e-12 {
			kept = append(kept, p)
		}
	}
	points = append(kept, [2]float64{qmax, st.Max})
	for _, p := range chartPcts {
		if v, ok := st.P[p.Key]; ok && p.Q/100 <= qmax+1e-12 {
			marks = append(marks, Mark{Q: p.Q / 100, V: v, Label: p.Label()})
		}
	}
	return points, append(marks, Mark{Q: qmax, V: st.Max, Label: "max"})
}
