package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// Metric is one figure compared between runs: a latency statistic of one kind (publish,
// e2e, e2e_intended, schedule_lag) where larger is worse, or a rate where smaller is worse.
type Metric struct {
	Name string  // as written: e2e.p99, receiver_rate
	Kind string  // latency kind; "" for a rate
	Stat string  // p99, p99.9, max, mean, min; or the rate's summary.json field
	Q    float64 // quantile for pN stats (0.99)
}

// LowerIsBetter is true for latencies, false for throughput.
func (m Metric) LowerIsBetter() bool { return m.Kind != "" }

// Label is how output names it: "e2e p99", "receiver_rate".
func (m Metric) Label() string {
	if m.Kind == "" {
		return m.Stat
	}
	return m.Kind + " " + m.Stat
}

// DefaultMetrics is what the gate checks unless told otherwise.
const DefaultMetrics = "e2e.p99,publish.p99,receiver_rate"

var rates = map[string]bool{"sender_rate": true, "ack_rate": true, "receiver_rate": true, "sender_bytes_per_s": true, "receiver_bytes_per_s": true}

var kinds = map[string]bool{"publish": true, "e2e": true, "e2e_intended": true, "schedule_lag": true}

// ParseMetrics reads a comma-separated list such as "e2e.p99,publish.p99.9,receiver_rate".
func ParseMetrics(list string) ([]Metric, error) {
	var out []Metric
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if name == "throughput" {
			name = "receiver_rate"
		}
		if rates[name] {
			out = append(out, Metric{Name: name, Stat: name})
			continue
		}
		kind, stat, ok := strings.Cut(name, ".")
		if !ok || !kinds[kind] {
			return nil, fmt.Errorf("metric %q: want KIND.STAT (KIND: publish, e2e, e2e_intended, schedule_lag; STAT: p50, p99, p99.9, …, max, mean) or a rate (sender_rate, ack_rate, receiver_rate, sender_bytes_per_s, receiver_bytes_per_s)", name)
		}
		m := Metric{Name: name, Kind: kind, Stat: strings.ReplaceAll(stat, "_", ".")}
		switch {
		case m.Stat == "max" || m.Stat == "mean" || m.Stat == "min":
		case strings.HasPrefix(m.Stat, "p"):
			p, err := strconv.ParseFloat(m.Stat[1:], 64)
			if err != nil || p <= 0 || p >= 100 {
				return nil, fmt.Errorf("metric %q: percentile %q is not between p0 and p100 (e.g. p99, p99.9)", name, m.Stat)
			}
			m.Q = p / 100
		default:
			return nil, fmt.Errorf("metric %q: unknown statistic %q (p50, p99, p99.9, …, max, mean, min)", name, stat)
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no metric given")
	}
	return out, nil
}

// ParseTolerance reads a percentage with its sign, "10%" or "0.5%", as a fraction (0.10).
// A bare number is refused: "0.1" reads as 10 % to some and 0.1 % to others. Above 100 % is
// refused too: a rate cannot fall further, so such a tolerance would quietly gate latency alone.
func ParseTolerance(s string) (float64, error) {
	num, ok := strings.CutSuffix(strings.TrimSpace(s), "%")
	if !ok {
		return 0, fmt.Errorf("write a percentage such as 10%% (got %q)", s)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("write a percentage such as 10%% (got %q)", s)
	case v < 0 || v > 100:
		return 0, fmt.Errorf("give a percentage from 0%% to 100%% (got %q)", s)
	}
	return v / 100, nil
}

// Value returns a metric of one cell of a run, and whether the run measured it: the exact
// figure from summary.json where it has one, otherwise read off the cell's .hgrm file.
// count is the number of samples behind a latency figure (0 for rates).
func Value(r *results.Run, cell string, m Metric) (v float64, count int64, ok bool) {
	c := r.Cell(cell)
	if c == nil {
		return 0, 0, false
	}
	if m.Kind == "" {
		switch m.Stat {
		case "sender_rate":
			return c.SenderRate, 0, true
		case "ack_rate":
			return c.AckRate, 0, true
		case "receiver_rate":
			return c.ReceiverRate, 0, true
		case "sender_bytes_per_s":
			return c.SenderBytesRate, 0, true
		case "receiver_bytes_per_s":
			return c.ReceiverBytesRate, 0, true
		}
		return 0, 0, false
	}
	st, _ := c.Stats(m.Kind)
	if st.Count == 0 {
		return 0, 0, false
	}
	switch m.Stat {
	case "max":
		return st.Max, st.Count, true
	case "mean":
		return st.Mean, st.Count, true
	case "min":
		return st.Min, st.Count, true
	}
	for _, p := range hist.Percentiles { // summary.json's percentiles, by quantile
		if math.Abs(p.Q/100-m.Q) < 1e-12 {
			if v, ok := st.P[p.Key]; ok {
				return v, st.Count, true
			}
		}
	}
	if d, ok := r.Dists[cell][m.Kind]; ok && len(d.Points) > 0 {
		return d.ValueAt(m.Q), st.Count, true
	}
	return 0, 0, false
}
