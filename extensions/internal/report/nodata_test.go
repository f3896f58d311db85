package report

import (
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/ledger"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// noData is a run where c1 ran but its publish latency threshold measured nothing (no
// acknowledgements), and c2 never started and has no threshold of its own.
func noData() *results.Summary {
	c1 := results.Cell{ID: "c1", Status: "complete", SizeLabel: "1KB", Rate: 100, Producers: 1, Consumers: 1, DurationS: 1,
		Sent: 100, Received: 100, Ledger: ledger.Tally{Issued: 100, Unique: 100}, Finalized: true}
	c2 := results.Cell{ID: "c2", Status: "not started", SizeLabel: "1MB", Rate: 1, Producers: 1, Consumers: 1, DurationS: 1}
	c1.Thresholds = []results.Threshold{{Metric: "mq_publish_latency{cell:c1}", Cell: "c1", Expression: "p(99)<20", Source: "p(99) < 20ms",
		Status: results.StatusNoData, Unit: "ms", EvaluatedBy: "mqbench"}}
	return &results.Summary{Schema: results.Schema, Scenario: "nodata", RunID: "r1", Broker: results.Broker{Type: "nats", AckMode: "none"}, Complete: true,
		Cells: []results.Cell{c1, c2}, Thresholds: c1.Thresholds}
}

// A threshold with no data is shown as such everywhere, never as a pass, and a cell that
// never started gets no pass badge (report.html showed "pass" beside "not started").
func TestNoDataShownAsSuch(t *testing.T) {
	s := noData()
	for _, c := range []struct {
		name, got string
		want      []string
		not       []string
	}{
		{"summary.txt", Text(s), []string{"  no data  mq_publish_latency{cell:c1}  p(99) < 20ms  (nothing measured)",
			"result: FAIL (1 threshold with no data)"}, []string{"ok  ", "result: PASS"}},
		{"report.html", HTML(s, nil), []string{`<td class="verdict">no data</td>`, `<span class="badge fail">no data</span> <span class="badge fail">not started</span>`},
			[]string{`badge pass`, `class="verdict pass"`}},
		{"breaches (the run's last lines, report.html's top)", strings.Join(Breaches(s), "\n"),
			[]string{"mq_publish_latency{cell:c1} p(99) < 20ms: no data (nothing measured)"}, nil},
		{"junit.xml", JUnit(s), []string{`name="mq_publish_latency p(99) &lt; 20ms" time="0">`,
			`<failure message="mq_publish_latency p(99) &lt; 20ms: no data (nothing measured)" type="threshold">`}, nil},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.got, w) {
				t.Errorf("%s lacks %q:\n%s", c.name, w, c.got)
			}
		}
		for _, n := range c.not {
			if strings.Contains(c.got, n) {
				t.Errorf("%s has %q:\n%s", c.name, n, c.got)
			}
		}
	}
}
