package itest

import (
	"strings"
	"testing"
)

// A producer-only run against a real broker: every send is acknowledged and measured, nothing
// is received, and the ledger calls the messages unconsumed rather than lost (a durable
// broker's default "nothing lost" threshold would otherwise fail a run that lost nothing).
func TestProducerOnly(t *testing.T) {
	r := runScenario(t, "extensions/itest/testdata/producer-only-kafka.yaml")
	if r.code != 0 || r.summary == nil || len(r.summary.Cells) != 1 {
		t.Fatalf("exit %d, summary written: %v\n%s", r.code, r.summary != nil, r)
	}
	c := r.summary.Cells[0]
	l := c.Ledger
	if c.Sent < 2700 || c.Acked != c.Sent || c.Received != 0 || l.Lost != 0 || l.Unconsumed+l.Unconfirmed != l.Issued-l.Failed || l.Unconsumed < c.Sent {
		t.Errorf("sent %d acked %d received %d, ledger %+v: want everything acknowledged, unconsumed, nothing lost", c.Sent, c.Acked, c.Received, l)
	}
	checkDist(t, "publish", c.PublishLatency, int64(c.Acked))
	if !strings.Contains(r.stdout, "ran without consumers") {
		t.Errorf("console does not say the cell ran without consumers:\n%s", r)
	}
}
