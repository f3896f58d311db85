package report

import (
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/jsnum"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// The broker's own view of a cell (results.BrokerSide) in summary.txt and report.html.

// brokerText is summary.txt's "broker side" table (nothing when no cell has broker data):
// per cell the highest broker backlog beside mqbench's own, CPU and memory, and how many
// samples failed.
func brokerText(s *results.Summary) []string {
	rows := [][]string{heads(BrokerColumns)}
	var notes []string
	for _, c := range s.Cells {
		b := c.Broker
		if !b.Known() && (b == nil || b.Errors == 0) {
			continue
		}
		rows = append(rows, []string{c.ID, utoa(b.Samples), utoa(b.Errors),
			orDash(b.BacklogMax != nil, func() string { return itoa(*b.BacklogMax) }), itoa(c.BacklogMax),
			orDash(b.CPUPercentMax != nil, func() string { return jsnum.Num(*b.CPUPercentMax, 1) }),
			orDash(b.MemoryBytesMax != nil, func() string { return bytesLabel(float64(*b.MemoryBytesMax)) })})
		if b.FirstError != "" {
			notes = append(notes, "note: "+c.ID+": "+utoa(b.Errors)+" of "+utoa(b.Samples)+" broker samples failed, first: "+b.FirstError)
		}
	}
	if len(rows) == 1 {
		return nil
	}
	return append([]string{"", "broker side (read from the broker about once a second; '-': not exposed)", table(rows)}, notes...)
}

// brokerCharts draws a cell's broker side over time: the broker's backlog beside mqbench's
// own (acknowledged − received), and the broker's CPU and memory when known.
func brokerCharts(c *results.Cell) string {
	b := c.Broker
	if !b.Known() {
		return ""
	}
	step := b.StepS
	if step <= 0 {
		step = 1
	}
	series := func(f func(results.BrokerPoint) (float64, bool)) [][2]float64 {
		var out [][2]float64
		for _, p := range b.Points {
			if v, ok := f(p); ok {
				out = append(out, [2]float64{p.T, v})
			}
		}
		return out
	}
	end := c.WarmupS + c.DurationS
	chart := func(title, ylabel string, ss ...Series) string {
		return TimeChart(Chart{Title: c.ID + ": " + title, XLabel: "seconds since the cell started", YLabel: ylabel, Series: ss,
			Bands: []Band{{0, c.WarmupS, "warm-up"}, {end, end + c.DrainS, "drain"}}, Events: faultEvents(c)})
	}
	var out strings.Builder
	if b.BacklogMax != nil {
		out.WriteString(chart("backlog, broker vs mqbench (messages)", "messages",
			Series{Name: "broker backlog", Color: "#9467bd", Width: 3, Points: series(func(p results.BrokerPoint) (float64, bool) {
				return float64(deref(p.Backlog)), p.Backlog != nil
			})},
			Series{Name: "mqbench backlog (acked - received)", Color: "#2ca02c", Dash: "5 3", Points: series(func(p results.BrokerPoint) (float64, bool) {
				// receipts can run ahead of acknowledgements (a negative difference): drawn as 0
				return float64(max(deref(p.ClientBacklog), 0)), p.ClientBacklog != nil
			})}))
	}
	if b.CPUPercentMax != nil {
		out.WriteString(chart("broker CPU (% of one core)", "CPU %",
			Series{Name: "broker CPU %", Color: "#d62728", Points: series(func(p results.BrokerPoint) (float64, bool) {
				return deref(p.CPUPercent), p.CPUPercent != nil
			})}))
	}
	if b.MemoryBytesMax != nil {
		out.WriteString(chart("broker memory (MB)", "MB resident",
			Series{Name: "broker memory MB", Color: "#8c564b", Points: series(func(p results.BrokerPoint) (float64, bool) {
				return float64(deref(p.MemoryBytes)) / 1048576, p.MemoryBytes != nil
			})}))
	}
	return out.String()
}

func deref[T int64 | float64](p *T) T {
	if p == nil {
		return 0
	}
	return *p
}
