package report

import (
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

func i64p(v int64) *int64     { return &v }
func f64p(v float64) *float64 { return &v }

// withBroker is the sample run with the broker's side of c1 fully known (RabbitMQ) and of c2
// only its backlog (Kafka).
func withBroker() *results.Summary {
	s := sample()
	s.Cells[0].Broker = &results.BrokerSide{StepS: 1, Samples: 5, BacklogMax: i64p(420), CPUPercentMax: f64p(35.5), MemoryBytesMax: i64p(150 << 20),
		Points: []results.BrokerPoint{
			{T: 0, Backlog: i64p(0), MemoryBytes: i64p(140 << 20), ClientBacklog: i64p(0)},
			{T: 1, Backlog: i64p(10), CPUPercent: f64p(20), MemoryBytes: i64p(145 << 20), ClientBacklog: i64p(8)},
			{T: 2, Backlog: i64p(420), CPUPercent: f64p(35.5), MemoryBytes: i64p(150 << 20), ClientBacklog: i64p(400)},
			{T: 3, Backlog: i64p(30), CPUPercent: f64p(25), MemoryBytes: i64p(150 << 20), ClientBacklog: i64p(25)},
			{T: 4, Backlog: i64p(0), CPUPercent: f64p(10), MemoryBytes: i64p(148 << 20), ClientBacklog: i64p(0)},
		}}
	s.Cells[1].Broker = &results.BrokerSide{StepS: 1, Samples: 4, Errors: 1, FirstError: "lag: <timeout>", BacklogMax: i64p(3),
		Points: []results.BrokerPoint{{T: 0, Backlog: i64p(0)}, {T: 1, Backlog: i64p(3)}, {T: 2, Backlog: i64p(1)}, {T: 3, Backlog: i64p(0)}}}
	return s
}

func TestBrokerSideText(t *testing.T) {
	for _, tc := range []struct {
		name      string
		s         *results.Summary
		want, not []string
	}{
		{"no broker data", sample(), nil, []string{"broker side"}},
		{"nothing known, no errors", func() *results.Summary {
			s := sample()
			s.Cells[0].Broker = &results.BrokerSide{StepS: 1, Samples: 3}
			return s
		}(), nil, []string{"broker side"}},
		{"rabbitmq and kafka", withBroker(), []string{
			"broker side (",
			"cell  samples  errors  backlog max  mqbench backlog max  cpu % max  memory max",
			"c1          5       0          420                    0       35.5     150.0MB",
			"c2          4       1            3                    0          -           -",
			"note: c2: 1 of 4 broker samples failed, first: lag: <timeout>",
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			txt := Text(tc.s)
			for _, w := range tc.want {
				if !strings.Contains(txt, w) {
					t.Errorf("summary.txt lacks %q:\n%s", w, txt)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(txt, n) {
					t.Errorf("summary.txt has %q:\n%s", n, txt)
				}
			}
		})
	}
}

func TestBrokerSideCharts(t *testing.T) {
	s := withBroker()
	page := HTML(s, dists(t, s))
	got := drawn(page)
	for name, n := range map[string]int{"broker backlog": 2, "mqbench backlog (acked - received)": 1, "broker CPU %": 1, "broker memory MB": 1} {
		if got[name] != n {
			t.Errorf("series %q drawn %d times, want %d (%v)", name, got[name], n, got)
		}
	}
	for _, w := range []string{"c1: backlog, broker vs mqbench (messages)", "c1: broker CPU (% of one core)", "c1: broker memory (MB)", "c2: backlog, broker vs mqbench (messages)"} {
		if !strings.Contains(page, Esc(w)) {
			t.Errorf("report.html has no chart %q", w)
		}
	}
	if strings.Contains(page, "c2: broker CPU") || strings.Contains(page, "c2: broker memory") {
		t.Error("a chart of a value the broker did not expose")
	}
	if strings.Contains(HTML(sample(), nil), "broker backlog") {
		t.Error("broker charts without broker data")
	}
}
