package itest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The broker's own view beside mqbench's, against real brokers: every cell of a run is
// sampled about once a second from its start to the end of its drain, what each broker
// exposes is known (RabbitMQ: queue depth, CPU, memory; Kafka: the group's lag; embedded
// NATS JetStream: pending, CPU, memory), thresholds on the broker's gauges are judged by
// mqbench, and console and report show the broker's side.
func TestBrokerSide(t *testing.T) {
	for _, tc := range []struct {
		broker      string
		cpu, memory bool
	}{
		{"rabbitmq", true, true},
		{"kafka", false, false},
		{"nats", true, true},
	} {
		t.Run(tc.broker, func(t *testing.T) {
			sideBySide(t)
			r := runScenario(t, "extensions/itest/testdata/brokerstats-"+tc.broker+".yaml")
			if r.code != 0 || r.summary == nil || len(r.summary.Cells) == 0 {
				t.Fatalf("exit %d, summary written: %v\n%s", r.code, r.summary != nil, r)
			}
			for _, c := range r.summary.Cells {
				b := c.BrokerSide
				if b == nil {
					t.Errorf("%s: no broker_side", c.ID)
					continue
				}
				// sampled at the start, then once a second through warm-up, duration and drain
				if want := c.WarmupS + c.DurationS + c.DrainS - 1; float64(b.Samples) < want || b.StepS != 1 || float64(len(b.Points)) < want {
					t.Errorf("%s: %d samples, %d points of %vs: want >= %v", c.ID, b.Samples, len(b.Points), b.StepS, want)
				}
				if b.Errors != 0 {
					t.Errorf("%s: %d of %d samples failed: %s", c.ID, b.Errors, b.Samples, b.FirstError)
				}
				if b.BacklogMax == nil || *b.BacklogMax < 0 {
					t.Errorf("%s: backlog_max %v: want known", c.ID, b.BacklogMax)
				}
				if tc.cpu != (b.CPUPercentMax != nil) || (tc.cpu && *b.CPUPercentMax <= 0) {
					t.Errorf("%s: cpu_percent_max %v, want known and > 0: %v", c.ID, b.CPUPercentMax, tc.cpu)
				}
				if tc.memory != (b.MemoryBytesMax != nil) || (tc.memory && *b.MemoryBytesMax <= 0) {
					t.Errorf("%s: memory_bytes_max %v, want known and > 0: %v", c.ID, b.MemoryBytesMax, tc.memory)
				}
				// RabbitMQ's management API lists a just-declared queue's depth only once its
				// statistics were first emitted (up to 5 s): the first points may lack the
				// broker's backlog; from the first one that has it, every point has it.
				seen, gaps := false, 0
				for _, p := range b.Points {
					if p.ClientBacklog == nil {
						t.Errorf("%s: point without mqbench's backlog: t %v", c.ID, p.T)
					}
					seen = seen || p.Backlog != nil
					if seen && p.Backlog == nil {
						gaps++
					}
				}
				if b.BacklogMax != nil && (gaps > 0 || b.Points[len(b.Points)-1].Backlog == nil) {
					t.Errorf("%s: the broker's backlog comes and goes (%d gaps) or is missing at the end", c.ID, gaps)
				}
				for _, th := range c.Thresholds {
					if strings.HasPrefix(th.Metric, "mq_broker_") && (th.EvaluatedBy != "mqbench" || th.Value == nil || !th.OK) {
						t.Errorf("%s: threshold %s %s: by %q, value %v, ok %v: want judged by mqbench on a measured value", c.ID, th.Metric, th.Expression, th.EvaluatedBy, th.Value, th.OK)
					}
				}
			}
			if !strings.Contains(r.stdout, "broker side (") {
				t.Errorf("console has no broker side table:\n%s", r.stdout)
			}
			page, err := os.ReadFile(filepath.Join(r.resultsDir, "report.html"))
			if err != nil || !strings.Contains(string(page), ": backlog, broker vs mqbench (messages)") {
				t.Errorf("report.html (%v) has no broker backlog chart", err)
			}
			if tc.cpu && !strings.Contains(string(page), ": broker CPU (% of one core)") {
				t.Error("report.html has no broker CPU chart")
			}
		})
	}
}
