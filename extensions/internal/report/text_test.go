package report

import (
	"math"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/jsnum"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

func TestText(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(s *results.Summary)
		want   []string // lines (or line fragments) that must be there
		absent []string
	}{{
		name: "a closed-loop cell says its rate is max and what its latency is not",
		edit: func(s *results.Summary) {
			s.Cells[1].Load, s.Cells[1].Inflight, s.Cells[1].Rate, s.Cells[1].E2ERate = results.LoadClosed, 200, 0, 398.6
		},
		want: []string{
			"c2    complete   1KB   max      1     400      400     400    399     0.10",
			"note: c2 ran rate: max with 200 in flight per producer. rate: max is a closed loop",
		},
		absent: []string{"note: c1"},
	}, {
		name: "seconds in which the host stole over 2% of the CPU are counted in a note; a little steal is not",
		edit: func(s *results.Summary) {
			pct := 6.25
			s.Cells[1].HostStealPct = &pct
			s.Cells[1].HostSteal = []results.StealSecond{{Start: 3, Length: 1, Pct: 30}, {Start: 4, Length: 1, Pct: 2}, {Start: 5, Length: 1, Pct: 2.5}}
			s.Cells[0].HostSteal = []results.StealSecond{{Start: 3, Length: 1, Pct: 1.9}}
		},
		want:   []string{"note: the host (a virtual machine's hypervisor) gave this machine's CPU to other guests during c2: 6.2% of its CPU time over the cell, over 2% in 2 seconds; latency in those seconds is partly the host's"},
		absent: []string{"other guests during c1"},
	}, {
		name: "publish errors say what the first one was, under the cells",
		edit: func(s *results.Summary) {
			s.Cells[1].PublishErrors, s.Cells[1].PublishFirstError = 26222, "rabbitmq: publish: connection to amqp://127.0.0.1:5672/ lost, reconnecting"
		},
		want:   []string{"note: c2: 26222 publish errors, first: rabbitmq: publish: connection to amqp://127.0.0.1:5672/ lost, reconnecting"},
		absent: []string{"note: c1"},
	}, {
		name: "unconfirmed and held have their own columns, apart from lost",
		edit: func(s *results.Summary) { s.Cells[1].Ledger.Unconfirmed, s.Cells[1].Ledger.Held = 406, 12 },
		want: []string{
			"c2    complete   1KB   800      1     400      400     400      0     0.10  2000  2000     1     406    12    2      3       0        7",
		},
	}, {
		name: "every threshold, the k6 one with a cell included",
		want: []string{
			"mqbench report-embedded  run 0a1b2c3d  broker nats embedded (ack: async)",
			"cell    status  size  rate  batch  sent/s  acked/s  recv/s  e2e/s  MB/s in  sent  recv  lost  unconf  held  dup  reord  errors  dropped",
			"c1    complete  256B   400      1     400      400     400      0     0.10  2000  2000     0       0     0    0      0       0        0",
			"c2    complete   1KB   800      1     400      400     400      0     0.10  2000  2000     1       0     0    2      3       0        7",
			"\nthresholds\n",
			"  ok    mq_e2e_latency{cell:c1}  p(99) < 5ms  (measured 1.24ms)\n",
			"  FAIL  mq_e2e_latency{cell:c2}  p(99) < 5ms  (measured 2.10s)\n",
			"  FAIL  c2: mqbench could not start 7 of 5,600 sends on time (the load generator fell behind, short of CPU or of ready VUs: schedule lag p99 30.0us, max 80.0us): this is not the broker. Use a bigger runner, lower the rate, raise workload.vus (VUs kept ready to send), or set validity.allow_dropped_iterations\n",
			"  ok    mq_loss_ratio  rate < 1%  (measured 0.000)\n",
			"received 1000.0KB in 11.2s; results in results/report-embedded/20260102T030405Z\nresult: FAIL (thresholds crossed)\n",
		},
	}, {
		name: "latency tables in us, ms and s",
		want: []string{
			"end-to-end latency (send -> receive)\n" +
				"cell  count      p50      p90      p95     p99   p99.9   p99.99  p99.999  p99.9999     max\n" +
				"c1     2000  120.0us  180.0us  216.0us  1.24ms  1.49ms  2.10ms*  2.10ms*   2.10ms*  2.10ms\n" +
				"c2     4000  150.0us  225.0us  270.0us   2.10s   2.52s   3.50s*   3.50s*    3.50s*   3.50s\n" +
				"* fewer samples than the percentile resolves (p99 needs 100, p99.99 10,000): the value is the max of too few\n",
			// 85.25 is exactly halfway: rounded up, as JavaScript's toFixed did.
			"publish latency (send -> broker ack)\ncell  count     p50",
			"c1     2000  85.3us  127.9us",
			"schedule lag (iteration start - intended start)",
			"end-to-end latency from intended send time (no coordinated omission)",
		},
	}, {
		name:   "a kind nobody recorded has no table",
		edit:   func(s *results.Summary) { s.Cells[0].ScheduleLag.Count, s.Cells[1].ScheduleLag.Count = 0, 0 },
		absent: []string{"schedule lag"},
	}, {
		name: "a cell without samples prints dashes",
		edit: func(s *results.Summary) { s.Cells[1].PublishLatency = stats(0, 0, 0, 0, 0) },
		want: []string{"c2        0       -        -        -        -        -         -         -         -        -\n"},
	}, {
		name: "no thresholds, no section",
		edit: func(s *results.Summary) {
			s.Thresholds, s.Cells[0].Thresholds, s.Cells[1].Thresholds, s.ThresholdsOK = nil, nil, nil, true
		},
		want:   []string{"result: PASS\n"},
		absent: []string{"thresholds\n", "FAIL"},
	}, {
		name: "a threshold only a cell lists is still printed",
		edit: func(s *results.Summary) { s.Thresholds = s.Thresholds[2:] },
		want: []string{"  FAIL  c2: mqbench could not start 7 of 5,600 sends on time (the load generator fell behind, short of CPU or of ready VUs: schedule lag p99 30.0us, max 80.0us): this is not the broker. Use a bigger runner, lower the rate, raise workload.vus (VUs kept ready to send), or set validity.allow_dropped_iterations\n", "  ok    mq_e2e_latency{cell:c1}  p(99) < 5ms  (measured 1.24ms)\n", "  FAIL  mq_e2e_latency{cell:c2}"},
	}, {
		name: "not measured, and a fraction",
		edit: func(s *results.Summary) { s.Thresholds[1].Value, s.Thresholds[3].Value = nil, ptr(0.12345) },
		want: []string{"  FAIL  mq_e2e_latency{cell:c2}  p(99) < 5ms\n", "  ok    mq_loss_ratio  rate < 1%  (measured 0.123)\n"},
	}, {
		name: "aborted",
		edit: func(s *results.Summary) {
			s.Complete = false
			s.Cells[1].Status = "interrupted"
		},
		want:   []string{"c2    interrupted", "result: ABORTED (stopped before every cell ended; figures above are what was measured)\n"},
		absent: []string{"result: FAIL", "result: PASS"},
	}, {
		name: "no control characters: escape sequences dropped, other control characters shown as \\xNN",
		edit: func(s *results.Summary) {
			s.Scenario, s.Broker.URL, s.Cells[0].ID = "evil\x1b[31m\r", "nats://h\x07ost", "c\x001"
		},
		want: []string{"mqbench evil  run 0a1b2c3d  broker nats nats://h\\x07ost (ack: async)", "\nc\\x001  complete"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := sample()
			if tc.edit != nil {
				tc.edit(s)
			}
			got := Text(s)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, got)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(got, a) {
					t.Errorf("unexpected %q in:\n%s", a, got)
				}
			}
			if i := strings.IndexFunc(got, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f }); i >= 0 {
				t.Errorf("control character %q at %d", got[i], i)
			}
		})
	}
}

// Every threshold of summary.json, and only those, is in summary.txt.
func TestTextThresholdsMatchSummary(t *testing.T) {
	for _, s := range []*results.Summary{sample(), edge()} {
		got := Text(s)
		lines := strings.Split(got[strings.Index(got, "\nthresholds\n")+len("\nthresholds\n"):], "\n")
		n := 0
		for _, l := range lines {
			if strings.HasPrefix(l, "  ok    ") || strings.HasPrefix(l, "  FAIL  ") {
				n++
			}
		}
		if want := len(s.AllThresholds()); n != want || want < len(s.Thresholds) {
			t.Errorf("%s: %d threshold lines, want %d:\n%s", s.Scenario, n, want, got)
		}
	}
}

func TestNumberFormats(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{USLabel(0), "0us"}, {USLabel(1.5), "1.5us"}, {USLabel(2), "2us"}, {USLabel(12), "12us"}, {USLabel(12.34), "12.3us"},
		{USLabel(850), "850us"}, {USLabel(1200), "1.2ms"}, {USLabel(3e6), "3s"}, {USLabel(math.NaN()), "-"},
		{bytesLabel(0), "0B"}, {bytesLabel(512), "512B"}, {bytesLabel(1536), "1.5KB"}, {bytesLabel(12 << 20), "12.0MB"},
		{PctLabel(0), "0%"}, {PctLabel(jsnum.Log10(2)), "50%"}, {PctLabel(1), "90%"}, {PctLabel(3), "99.9%"}, {PctLabel(6), "99.9999%"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
