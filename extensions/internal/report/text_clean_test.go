package report

import (
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

// Text from a broker or a results folder (an error, a fault's outcome, a broker sample's
// error, the scenario name) cannot add a line of its own to summary.txt, move the cursor of
// the terminal it is printed on, or reorder what is shown (bidi controls).
func TestTextCleansUntrustedFields(t *testing.T) {
	tests := []struct {
		name string
		edit func(s *results.Summary)
	}{
		{"run error", func(s *results.Summary) { s.Error = "broker refused the run: denied\nresult: PASS\x1b[2J" }},
		{"scenario name", func(s *results.Summary) { s.Scenario = "x\r\nresult: PASS\u202e" }},
		{"broker url and server", func(s *results.Summary) {
			s.Broker.URL, s.Broker.Server = "nats://h:1\nresult: PASS", "srv\x1b]0;title\x07\nresult: PASS"
		}},
		{"broker sample error", func(s *results.Summary) {
			s.Cells[0].Broker = &results.BrokerSide{Samples: 3, Errors: 1, FirstError: "boom\nresult: PASS\x1b[1A"}
		}},
		{"publish error", func(s *results.Summary) {
			s.Cells[0].PublishErrors, s.Cells[0].PublishFirstError = 2, "lost\nresult: PASS\x1b[1A"
		}},
		{"fault outcome", func(s *results.Summary) {
			s.Cells[0].Faults = []results.Fault{{T: 1, Action: "stop", Asked: "leader", Error: "x\nresult: PASS\x9b"}}
		}},
		{"threshold source", func(s *results.Summary) {
			s.Thresholds = append(s.Thresholds, results.Threshold{Metric: "mq_lost", Source: "count == 0\nresult: PASS", OK: false})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := sample()
			s.Error, s.ThresholdsOK = "", false
			tc.edit(s)
			out := Text(s)
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "result: PASS") {
					t.Errorf("a line %q was injected:\n%s", l, out)
				}
			}
			for _, r := range out {
				if (r < 0x20 && r != '\n') || (r >= 0x7f && r <= 0x9f) || r == 0x202e {
					t.Errorf("summary.txt holds %U:\n%q", r, out)
				}
			}
		})
	}
}
