package reproduce

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

// ms is microseconds as milliseconds, two decimals.
func ms(us float64) string { return fmt.Sprintf("%.2f", us/1000) }

// LatencyRows are the latency table's rows, one per cell: scenario, cell, size, rate, e2e p50,
// p99, p99.99, mean ± stddev (ms), and whether the cell held its rate (nothing dropped or lost).
func LatencyRows(s *results.Summary) string {
	var b strings.Builder
	for _, c := range s.Cells {
		e := c.E2ELatency
		rate, held := strconv.Itoa(c.Rate), "yes"
		if c.Rate == 0 {
			rate = "max"
		}
		if c.DroppedIterations != 0 || c.Ledger.Lost != 0 {
			held = "no"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s ± %s | %s |\n", s.Scenario, c.ID, c.SizeLabel, rate,
			ms(e.P["p50"]), ms(e.P["p99"]), ms(e.P["p99_99"]), ms(e.Mean), ms(e.StdDev), held)
	}
	return b.String()
}

// RateRows are the throughput table's rows, one per cell: scenario, cell, size, messages sent,
// sender, receiver and end-to-end rates (msg/s), publish and e2e p99 (ms), lost.
func RateRows(s *results.Summary) string {
	var b strings.Builder
	for _, c := range s.Cells {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %.0f | %.0f | %.0f | %s | %s | %d |\n", s.Scenario, c.ID, c.SizeLabel, c.Sent,
			c.SenderRate, c.ReceiverRate, c.E2ERate, ms(c.PublishLatency.P["p99"]), ms(c.E2ELatency.P["p99"]), c.Ledger.Lost)
	}
	return b.String()
}

// ClosedRows are the closed-loop table's rows, one per cell: scenario, nodes, cell, size, sent,
// sender, receiver and end-to-end rates (msg/s), and the e2e p95 of each minute (ms).
func ClosedRows(s *results.Summary, nodes string) string {
	var b strings.Builder
	for _, c := range s.Cells {
		var mins []string
		for _, m := range c.P95ByMinute["e2e"] {
			mins = append(mins, ms(m.P95))
		}
		if len(mins) == 0 {
			mins = []string{"-"}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %.0f | %.0f | %.0f | %s |\n", s.Scenario, nodes, c.ID, c.SizeLabel, c.Sent,
			c.SenderRate, c.ReceiverRate, c.E2ERate, strings.Join(mins, " / "))
	}
	return b.String()
}
