package report

import (
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

func TestThroughputCurves(t *testing.T) {
	cell := func(id, size string, bytes, rate int, p50, p99 float64) results.Cell {
		return results.Cell{ID: id, SizeLabel: size, Size: bytes, Rate: rate, Load: results.LoadOpen, ReceiverRate: float64(rate) * 0.99,
			E2ELatency: hist.Stats{Count: 100, P: map[string]float64{"p50": p50, "p99": p99}}}
	}
	s := &results.Summary{Cells: []results.Cell{
		cell("c1", "1KB", 1024, 1000, 100, 300),
		cell("c2", "2KB", 2048, 1000, 110, 320),
		cell("c3", "1KB", 1024, 20000, 150, 2500),
		cell("c4", "1KB", 1024, 5000, 120, 600),
	}}
	s.Cells[2].Thresholds = []results.Threshold{{Metric: "mq_e2e_latency{cell:c3}", OK: false}}
	got := throughputCurves(s)
	for _, want := range []string{`data-chart="throughput"`, `data-series="1KB e2e p99"`, `data-series="1KB e2e p50"`,
		`class="verdict fail"`, `c3 (20000/s, received 19800/s): thresholds FAIL`, `>20k<`} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "2KB") || strings.Count(got, `class="verdict ok"`) != 2 {
		t.Errorf("want the two passing 1KB cells marked and no 2KB series (one cell):\n%s", got)
	}
	// The 1KB points run by received rate: c1, c4, c3.
	if i1, i4, i3 := strings.Index(got, "c1 ("), strings.Index(got, "c4 ("), strings.Index(got, "c3 ("); !(i1 < i4 && i4 < i3) {
		t.Errorf("points not in rate order: c1 %d, c4 %d, c3 %d", i1, i4, i3)
	}
	s.Cells = s.Cells[:2]
	if got := throughputCurves(s); got != "" {
		t.Errorf("one cell per size: want no chart, got %s", got)
	}
	if !strings.Contains(HTML(&results.Summary{Cells: []results.Cell{cell("a", "1KB", 1024, 10, 1, 2), cell("b", "1KB", 1024, 20, 1, 3)}}, nil), `data-chart="throughput"`) {
		t.Error("report.html has no throughput chart for two 1KB cells")
	}
}
