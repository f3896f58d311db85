package results

import "strings"

// BrokerSide is the broker's own view of a cell (summary.json cells[].broker_side), sampled
// about once a second from the driver while the cell ran (warm-up and drain included):
// the backlog the broker holds for the run's consumers, the broker process's CPU and
// resident memory. Absent when the driver cannot read the broker's side. A field the broker
// does not expose in the run's configuration is absent from the points and null in the
// maxima.
type BrokerSide struct {
	// StepS is the width of a point in seconds: 1, wider for very long cells (a point then
	// holds the highest value of its slot).
	StepS  float64       `json:"step_s"`
	Points []BrokerPoint `json:"points"`
	// The highest value of every sample (nil: never known).
	BacklogMax     *int64   `json:"backlog_max"`
	CPUPercentMax  *float64 `json:"cpu_percent_max"`
	MemoryBytesMax *int64   `json:"memory_bytes_max"`
	// Samples is how many times the broker was asked; Errors how many of those failed (what
	// the sample could still read is kept), FirstError the first failure's text.
	Samples    uint64 `json:"samples"`
	Errors     uint64 `json:"errors"`
	FirstError string `json:"first_error,omitempty"`
}

// BrokerPoint is the broker's side in [T, T+step) seconds after the cell started; fields the
// broker did not expose are absent. ClientBacklog is mqbench's own backlog (acknowledged −
// received) at the same moment, to set beside the broker's.
type BrokerPoint struct {
	T             float64  `json:"t"`
	Backlog       *int64   `json:"backlog,omitempty"`
	CPUPercent    *float64 `json:"cpu_percent,omitempty"`
	MemoryBytes   *int64   `json:"memory_bytes,omitempty"`
	ClientBacklog *int64   `json:"client_backlog,omitempty"`
}

// Known reports whether any sample read anything.
func (b *BrokerSide) Known() bool {
	return b != nil && (b.BacklogMax != nil || b.CPUPercentMax != nil || b.MemoryBytesMax != nil)
}

// brokerText is summary.txt's "broker side" table (nothing when no cell has broker data):
// per cell the highest broker backlog beside mqbench's own, CPU and memory, and how many
// samples failed.
func brokerText(s *Summary) []string {
	rows := [][]string{heads(BrokerColumns)}
	var notes []string
	for _, c := range s.Cells {
		b := c.Broker
		if !b.Known() && (b == nil || b.Errors == 0) {
			continue
		}
		rows = append(rows, []string{c.ID, utoa(b.Samples), utoa(b.Errors),
			orDash(b.BacklogMax != nil, func() string { return itoa(*b.BacklogMax) }), itoa(c.BacklogMax),
			orDash(b.CPUPercentMax != nil, func() string { return num(*b.CPUPercentMax, 1) }),
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
func brokerCharts(c *Cell) string {
	b := c.Broker
	if !b.Known() {
		return ""
	}
	step := b.StepS
	if step <= 0 {
		step = 1
	}
	series := func(f func(BrokerPoint) (float64, bool)) [][2]float64 {
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
			Series{Name: "broker backlog", Color: "#9467bd", Width: 3, Points: series(func(p BrokerPoint) (float64, bool) {
				return float64(deref(p.Backlog)), p.Backlog != nil
			})},
			Series{Name: "mqbench backlog (acked - received)", Color: "#2ca02c", Dash: "5 3", Points: series(func(p BrokerPoint) (float64, bool) {
				// receipts can run ahead of acknowledgements (a negative difference): drawn as 0
				return float64(max(deref(p.ClientBacklog), 0)), p.ClientBacklog != nil
			})}))
	}
	if b.CPUPercentMax != nil {
		out.WriteString(chart("broker CPU (% of one core)", "CPU %",
			Series{Name: "broker CPU %", Color: "#d62728", Points: series(func(p BrokerPoint) (float64, bool) {
				return deref(p.CPUPercent), p.CPUPercent != nil
			})}))
	}
	if b.MemoryBytesMax != nil {
		out.WriteString(chart("broker memory (MB)", "MB resident",
			Series{Name: "broker memory MB", Color: "#8c564b", Points: series(func(p BrokerPoint) (float64, bool) {
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
