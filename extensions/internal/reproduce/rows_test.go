package reproduce

import (
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/ledger"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// The rows are what the study tables printed before (checked against them on a real run).
func TestRows(t *testing.T) {
	e2e := hist.Stats{Mean: 133384, StdDev: 4891, P: map[string]float64{"p50": 130810, "p99": 143650, "p99_99": 144006}}
	s := &results.Summary{Scenario: "st", Cells: []results.Cell{
		{ID: "c1", SizeLabel: "256B", Sent: 1000, SenderRate: 60107.4, ReceiverRate: 231111.6, E2ERate: 6762.5,
			PublishLatency: hist.Stats{P: map[string]float64{"p99": 15110}}, E2ELatency: e2e,
			P95ByMinute: map[string][]results.MinuteStat{"e2e": {{P95: 12345}, {P95: 500}}}},
		{ID: "c2", SizeLabel: "1KB", Rate: 3000, DroppedIterations: 2, Ledger: ledger.Tally{Lost: 1}, E2ELatency: e2e},
	}}
	for _, tc := range []struct{ name, got, want string }{
		{"latency", LatencyRows(s), "| st | c1 | 256B | max | 130.81 | 143.65 | 144.01 | 133.38 ± 4.89 | yes |\n" +
			"| st | c2 | 1KB | 3000 | 130.81 | 143.65 | 144.01 | 133.38 ± 4.89 | no |\n"},
		{"closed", ClosedRows(s, "3"), "| st | 3 | c1 | 256B | 1000 | 60107 | 231112 | 6762 | 12.35 / 0.50 |\n" +
			"| st | 3 | c2 | 1KB | 0 | 0 | 0 | 0 | - |\n"},
		{"rate", RateRows(s), "| st | c1 | 256B | 1000 | 60107 | 231112 | 6762 | 15.11 | 143.65 | 0 |\n" +
			"| st | c2 | 1KB | 0 | 0 | 0 | 0 | 0.00 | 143.65 | 1 |\n"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s rows\n%s\nwant\n%s", tc.name, tc.got, tc.want)
		}
	}
}
