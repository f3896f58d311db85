package itest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rate: max against real brokers: a closed loop sends exactly its message count, holds its
// in-flight window (with one message in flight a producer cannot outrun its acknowledgements),
// ends its cell as soon as everything arrived rather than at its 10-minute limit, and says in
// console, summary and report that its latency is not open-model latency.
func TestClosedLoop(t *testing.T) {
	for _, broker := range []string{"rabbitmq", "kafka"} {
		t.Run(broker, func(t *testing.T) {
			sideBySide(t)
			began := time.Now()
			r := runScenario(t, "extensions/itest/testdata/max-"+broker+".yaml")
			took := time.Since(began)
			if r.code != 0 || r.summary == nil || len(r.summary.Cells) != 2 {
				t.Fatalf("exit %d, summary written: %v\n%s", r.code, r.summary != nil, r)
			}
			// c2 counts 20,000 messages under a 10-minute limit; c1 lasts 1s + 3s + drain.
			if took > 3*time.Minute {
				t.Errorf("run took %v: the message-counted cell did not end when its messages were through", took)
			}
			for _, c := range r.summary.Cells {
				if c.Load != "closed" || c.Rate != 0 {
					t.Errorf("%s: load %q rate %d, want closed 0", c.ID, c.Load, c.Rate)
				}
				if c.Received != c.Sent || c.Acked != c.Sent || c.Ledger.Lost != 0 || c.Ledger.Duplicated != 0 || c.PublishErrors != 0 {
					t.Errorf("%s: sent %d acked %d received %d, ledger %+v, errors %d", c.ID, c.Sent, c.Acked, c.Received, c.Ledger, c.PublishErrors)
				}
				// nothing is scheduled in a closed loop: no intended time, no lag, no drops
				if c.E2EIntendedLatency.Count != 0 || c.ScheduleLag.Count != 0 || c.DroppedIterations != 0 {
					t.Errorf("%s: e2e_intended %d, schedule lag %d, dropped %v: want none", c.ID, c.E2EIntendedLatency.Count, c.ScheduleLag.Count, c.DroppedIterations)
				}
				checkDist(t, c.ID+" e2e", c.E2ELatency, int64(c.Received))
				checkDist(t, c.ID+" publish", c.PublishLatency, int64(c.Acked))
				if c.E2ERate <= 0 || c.E2ERate > 1.05*c.SenderRate {
					t.Errorf("%s: e2e rate %.0f/s with sender rate %.0f/s", c.ID, c.E2ERate, c.SenderRate)
				}
			}
			c1, c2 := r.summary.Cells[0], r.summary.Cells[1]
			// One message in flight per producer: each waits for its acknowledgement, so the
			// producers together send at most producers / mean publish latency.
			if limit := float64(c1.Producers) * 1e6 / c1.PublishLatency.Mean; c1.Inflight != 1 || c1.SenderRate > 1.25*limit {
				t.Errorf("c1: inflight %d, sent %.0f/s but %d producers with one message in flight and %.0fus mean publish latency manage %.0f/s",
					c1.Inflight, c1.SenderRate, c1.Producers, c1.PublishLatency.Mean, limit)
			}
			if c2.Sent != 20000 || c2.SentWarmup == 0 || c2.Inflight != 200 {
				t.Errorf("c2: sent %d (+%d warm-up), inflight %d: want exactly 20000 measured after a warm-up, window 200", c2.Sent, c2.SentWarmup, c2.Inflight)
			}
			if !strings.Contains(r.stdout, "note: c2 ran rate: max with 200 in flight per producer") {
				t.Errorf("console does not say c2 was a closed loop:\n%s", r)
			}
			b, err := os.ReadFile(filepath.Join(r.resultsDir, "report.html"))
			if err != nil || !strings.Contains(string(b), `class="note closed-loop"`) || !strings.Contains(string(b), "rate max (closed loop, 1 in flight per producer)") {
				t.Errorf("report.html (%v) does not mark the closed-loop cells", err)
			}
		})
	}
}
