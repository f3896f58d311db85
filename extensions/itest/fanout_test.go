package itest

import (
	"strings"
	"testing"
)

// Fan-out and many destinations against real brokers: with three subscriptions every one
// receives every message (the ledger counts per subscription), and with four destinations
// every queue carries its producers' messages to its consumers, and the run leaves none behind.
func TestFanOutAndDestinations(t *testing.T) {
	t.Run("kafka 3 subscriptions", func(t *testing.T) {
		sideBySide(t)
		r := runScenario(t, "extensions/itest/testdata/fanout-kafka.yaml")
		if r.code != 0 || r.summary == nil || len(r.summary.Cells) != 1 {
			t.Fatalf("exit %d, summary written: %v\n%s", r.code, r.summary != nil, r)
		}
		c := r.summary.Cells[0]
		l := c.Ledger
		if c.Received != 3*c.Sent || l.Lost != 0 || l.Duplicated != 0 || len(l.Subscriptions) != 3 {
			t.Fatalf("sent %d, received %d (want 3x: every subscription gets every message), ledger %+v", c.Sent, c.Received, l)
		}
		for i, s := range l.Subscriptions {
			if s.Unique != l.Issued-l.Failed || s.Lost != 0 || s.Duplicated != 0 {
				t.Errorf("subscription %d: %+v, want all %d messages once", i, s, l.Issued-l.Failed)
			}
		}
		if !strings.Contains(r.stdout, "ledger by subscription") {
			t.Errorf("console has no per-subscription ledger:\n%s", r)
		}
		checkDist(t, "fan-out e2e", c.E2ELatency, int64(c.Received))
	})
	t.Run("rabbitmq 4 destinations", func(t *testing.T) {
		sideBySide(t)
		r := runScenario(t, "extensions/itest/testdata/destinations-rabbitmq.yaml")
		if r.code != 0 || r.summary == nil || len(r.summary.Cells) != 1 {
			t.Fatalf("exit %d, summary written: %v\n%s", r.code, r.summary != nil, r)
		}
		c := r.summary.Cells[0]
		if c.Received != c.Sent || c.Ledger.Lost != 0 || c.Ledger.Duplicated != 0 || c.Sent < 5400 {
			t.Errorf("sent %d received %d ledger %+v", c.Sent, c.Received, c.Ledger)
		}
		// every queue was created and removed: none of mqbench-itest-dest-0..3 is left
		if left := leftovers(t, "destinations-rabbitmq", r.summary.RunID); len(left) > 0 {
			t.Errorf("queues left behind: %v", left)
		}
	})
}
