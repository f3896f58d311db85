package results

import (
	"math"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
)

// A dropped iteration is a send the load generator (k6 and mqbench) could not start on
// schedule: the run did not measure what it claims, but the broker did not breach anything.
// Reports say so in the user's words, naming the cell and the fix, instead of k6's
// "dropped_iterations{scenario:c2_publish} count==0".

// brokerHeldSends: a cell whose publish latency reached this (µs) had sends that waited on
// the broker (a full client buffer, flow control, a reconnect), so its drops may be the
// broker's too. The generator's own stalls on a starved 2-core machine stayed under 350 ms.
const brokerHeldSends = 1e6

// generatorThreshold reports whether t judges k6's dropped iterations.
func generatorThreshold(t Threshold) bool {
	m, _, _ := strings.Cut(t.Metric, "{")
	return m == catalog.DroppedIterations
}

// generatorFailed reports whether t is a failed dropped-iterations threshold whose cell's
// figures put the cause on the generator (its sends were not held back by the broker).
func generatorFailed(s *Summary, t Threshold) bool {
	return GeneratorReason(s, t) != "" && !heldByBroker(s.Cell(t.Cell))
}

// heldByBroker: the broker may have held the cell's sends back: an acknowledgement took a
// second or more, a send failed, or the scenario's faults took a node away.
func heldByBroker(c *Cell) bool {
	if c == nil {
		return false
	}
	return c.PublishErrors > 0 || len(c.Faults) > 0 || (c.PublishLatency.Count > 0 && c.PublishLatency.Max >= brokerHeldSends)
}

// GeneratorOnly reports whether the run failed only because the load generator could not
// hold the schedule: a dropped-iterations threshold failed, and every other threshold held
// (none failed, none had no data). Such a run is invalid, not a breach by the broker.
func GeneratorOnly(s *Summary) bool {
	found := false
	for _, t := range s.AllThresholds() {
		switch {
		case t.State() == StatusPass:
		case generatorFailed(s, t):
			found = true
		default:
			return false
		}
	}
	return found
}

// GeneratorReason is a failed dropped-iterations threshold in plain words, naming the cell,
// the figures that show why and the fix; "" for any other threshold, and for one that
// counted no drop.
func GeneratorReason(s *Summary, t Threshold) string {
	if !generatorThreshold(t) || t.State() != StatusFail {
		return ""
	}
	c := s.Cell(t.Cell)
	var dropped int64
	switch {
	case t.Value != nil:
		dropped = int64(*t.Value)
	case c != nil:
		dropped = c.DroppedIterations
	}
	if dropped <= 0 {
		return "" // nothing counted (a run stopped before k6 reported): the plain line says so
	}
	head := "mqbench could not start " + grouped(dropped)
	what := " sends"
	if c != nil {
		head = c.ID + ": " + head
		if planned := plannedIterations(c); planned > 0 {
			head += " of " + grouped(planned)
		}
		if c.Batch > 1 {
			what = " batches (of " + strconv.Itoa(c.Batch) + " messages)"
		}
	}
	head += what + " on time"
	figures := generatorFigures(c)
	if heldByBroker(c) {
		return head + " (the broker may have held sends back: " + brokerFigures(c) + figures +
			"): the measurement is invalid. Lower the rate, or see whether the broker keeps up at it"
	}
	return head + " (the load generator fell behind, short of CPU or of ready VUs" + strings.Replace(figures, ", ", ": ", 1) +
		"): this is not the broker. Use a bigger runner, lower the rate, raise workload.vus (VUs kept ready to send), " +
		"or set validity.allow_dropped_iterations"
}

// brokerFigures is what heldByBroker saw: "publish latency max 1.50s, 3 publish errors".
func brokerFigures(c *Cell) string {
	var out []string
	if c.PublishLatency.Count > 0 {
		out = append(out, "publish latency max "+Micros(c.PublishLatency.Max))
	}
	if c.PublishErrors > 0 {
		out = append(out, grouped(int64(c.PublishErrors))+map[bool]string{true: " publish error", false: " publish errors"}[c.PublishErrors == 1])
	}
	if len(c.Faults) > 0 {
		out = append(out, "faults ran")
	}
	return strings.Join(out, ", ")
}

// generatorFigures is ", schedule lag p99 …, max …, host steal …%" from what the cell
// measured; "" when it measured neither.
func generatorFigures(c *Cell) string {
	if c == nil {
		return ""
	}
	var out string
	if st := c.ScheduleLag; st.Count > 0 {
		out += ", schedule lag p99 " + Micros(st.P["p99"]) + ", max " + Micros(st.Max)
	}
	if c.HostStealPct != nil {
		out += ", host steal " + strconv.FormatFloat(*c.HostStealPct, 'f', 1, 64) + "%"
	}
	return out
}

// plannedIterations is how many iterations the cell's schedule had (warm-up included, as
// k6 counts its drops); 0 for a cell without a fixed rate.
func plannedIterations(c *Cell) int64 {
	if c.Rate <= 0 {
		return 0
	}
	if len(c.Stages) > 0 { // the profile's integral, the warm-up held at the start rate
		n, from := float64(c.StartRate)*c.WarmupS, float64(c.StartRate)
		for _, s := range c.Stages {
			n += (from + float64(s.Target)) / 2 * s.DurationS
			from = float64(s.Target)
		}
		return int64(math.Round(n / float64(max(c.Batch, 1))))
	}
	return int64(math.Round(float64(c.Rate) * (c.WarmupS + c.DurationS) / float64(max(c.Batch, 1))))
}

// grouped writes n with thousands separators: 5,000.
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// withReasons fills each failed dropped-iterations threshold's Reason in summary.json.
func withReasons(s *Summary) {
	for i := range s.Thresholds {
		s.Thresholds[i].Reason = GeneratorReason(s, s.Thresholds[i])
	}
	for i := range s.Cells {
		for j := range s.Cells[i].Thresholds {
			s.Cells[i].Thresholds[j].Reason = GeneratorReason(s, s.Cells[i].Thresholds[j])
		}
	}
}

// GeneratorVerdict is the verdict of a run that GeneratorOnly describes, in every report.
const GeneratorVerdict = "the load generator could not hold the schedule; no broker threshold failed: the measurement is invalid, not the broker"
