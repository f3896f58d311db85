package figure

import (
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/ledger"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

func TestOf(t *testing.T) {
	s := &results.Summary{Scenario: "st", Complete: true, Mqbench: "v1.2.3",
		Runners: []results.Runner{{Cells: []results.RunnerCell{{ID: "c1", SenderRate: 19999.5}}}, {Cells: []results.RunnerCell{{ID: "c1", SenderRate: 19999.4}}}}, Cells: []results.Cell{
			{ID: "c1", Sent: 10, SenderRate: 999.5, PublishLatency: hist.Stats{Mean: 466.25, P: map[string]float64{"p50": 400, "p99": 1234.5}}},
			{ID: "c2", Received: 7, Ledger: ledger.Tally{Lost: 3}, DroppedIterations: 2, CPUPerMessageUS: 2.49},
		}}
	for _, tc := range []struct {
		id    string
		names []string
		want  string
		err   string
	}{
		{"", []string{"sent", "sender_rate", "publish_p50_us", "publish_p99_us", "publish_mean_us"}, "10 999.5 400 1234.5 466.25", ""},
		{"c2", []string{"received", "lost", "dropped_iterations", "cpu_per_message_us", "e2e_p95_us"}, "7 3 2 2.49 0", ""},
		{"c2", []string{"complete", "mqbench", "sent"}, "1 v1.2.3 0", ""},
		{"c1", []string{"sent", "runner_sender_rates"}, "10 20000 19999", ""},
		{"c3", []string{"sent"}, "", `no cell "c3" in st's summary`},
		{"c1", []string{"p42"}, "", `figure "p42": give complete, mqbench, runner_sender_rates or one of ack_rate, acked,`},
	} {
		got, err := Of(s, tc.id, tc.names)
		if tc.err != "" {
			if err == nil || len(err.Error()) < len(tc.err) || err.Error()[:len(tc.err)] != tc.err {
				t.Errorf("Of(%q, %v) error %v, want %q", tc.id, tc.names, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Of(%q, %v) = %q, %v; want %q", tc.id, tc.names, got, err, tc.want)
		}
	}
}
