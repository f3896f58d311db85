package report

import (
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// throughput draws a cell's messages sent and received per second over time, warm-up and
// drain shaded, the scenario's faults marked.
func throughput(c *results.Cell) string {
	if len(c.Timeline) == 0 {
		return `<p class="muted">no timeline recorded</p>`
	}
	step := c.TimelineStepS
	if step == 0 {
		step = 1
	}
	// Each slot as a flat step from t to t + step: counts per slot, not a trend between samples.
	steps := func(f func(results.TimelinePoint) uint64) [][2]float64 {
		out := make([][2]float64, 0, 2*len(c.Timeline))
		for _, p := range c.Timeline {
			v := float64(f(p)) / step
			out = append(out, [2]float64{p.T, v}, [2]float64{p.T + step, v})
		}
		return out
	}
	end := c.WarmupS + c.DurationS
	series := []Series{
		{Name: "sent", Color: "#1f77b4", Width: 4, Opacity: 0.45, Points: steps(func(p results.TimelinePoint) uint64 { return p.Sent })},
		{Name: "received", Color: "#2ca02c", Dash: "5 3", Points: steps(func(p results.TimelinePoint) uint64 { return p.Received })},
	}
	if len(c.Stages) > 0 {
		series = append(series, Series{Name: "target", Color: "#444444", Dash: "2 3", Points: profile(c)})
	}
	return TimeChart(Chart{
		Title:  c.ID + ": throughput over time (msg/s)",
		XLabel: "seconds since the cell started",
		YLabel: "messages per second",
		Series: series,
		Bands:  []Band{{0, c.WarmupS, "warm-up"}, {end, end + c.DrainS, "drain"}},
		Events: faultEvents(c),
	})
}

// profile is a cell's target rate over time: the warm-up at the start rate, then each
// stage's line from the previous target to its own.
func profile(c *results.Cell) [][2]float64 {
	t, rate := c.WarmupS, float64(c.StartRate)
	out := [][2]float64{{0, rate}, {t, rate}}
	for _, st := range c.Stages {
		t, rate = t+st.DurationS, float64(st.Target)
		out = append(out, [2]float64{t, rate})
	}
	return out
}

// latencyOverTime draws each second's end-to-end p50, p99 and max (nothing when the cell
// recorded none): a soak's drift or a stall shows where it happened.
func latencyOverTime(c *results.Cell) string {
	step := c.TimelineStepS
	if step == 0 {
		step = 1
	}
	var p50, p99, mx [][2]float64
	for _, p := range c.Timeline {
		if p.E2EMaxUS > 0 {
			p50 = append(p50, [2]float64{p.T + step/2, p.E2EP50US})
			p99 = append(p99, [2]float64{p.T + step/2, p.E2EP99US})
			mx = append(mx, [2]float64{p.T + step/2, p.E2EMaxUS})
		}
	}
	if len(mx) == 0 {
		return ""
	}
	end := c.WarmupS + c.DurationS
	return TimeChart(Chart{
		Title:   c.ID + ": end-to-end latency over time (each second's p50, p99, max)",
		XLabel:  "seconds since the cell started",
		YLabel:  "latency",
		YFormat: USLabel,
		Series: []Series{
			{Name: "p50", Color: "#1f77b4", Points: p50},
			{Name: "p99", Color: "#ff7f0e", Points: p99},
			{Name: "max", Color: "#d62728", Dash: "4 3", Points: mx},
		},
		Bands:  []Band{{0, c.WarmupS, "warm-up"}, {end, end + c.DrainS, "drain"}},
		Events: faultEvents(c),
	})
}
