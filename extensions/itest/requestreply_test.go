package itest

import (
	"math"
	"strings"
	"testing"
)

// workload.pattern: request-reply against real brokers: every request, sent on the
// open-model schedule, comes back exactly once from a responder mqbench runs, and the
// end-to-end latency is that round trip.
func TestRequestReply(t *testing.T) {
	for _, broker := range []string{"nats", "rabbitmq"} {
		t.Run(broker, func(t *testing.T) {
			sideBySide(t)
			r := runScenario(t, "extensions/itest/testdata/request-reply-"+broker+".yaml")
			if r.code != 0 || r.summary == nil || len(r.summary.Cells) != 2 {
				t.Fatalf("exit %d, summary written: %v\n%s", r.code, r.summary != nil, r)
			}
			if r.summary.Pattern != "request-reply" || !strings.Contains(r.stdout, "end-to-end latency is the round trip") {
				t.Errorf("pattern %q; console says what the latency is: %v", r.summary.Pattern, strings.Contains(r.stdout, "round trip"))
			}
			for _, c := range r.summary.Cells {
				want := float64(c.Rate) * 3 // duration 3s
				if math.Abs(float64(c.Sent)-want) > 0.1*want {
					t.Errorf("%s: sent %d requests, want ~%.0f", c.ID, c.Sent, want)
				}
				l := c.Ledger
				if c.Received != c.Sent || l.Lost != 0 || l.Duplicated != 0 || c.PublishErrors != 0 || !c.LedgerFinal {
					t.Errorf("%s: %d requests, %d replies, ledger %+v, %d errors: want one reply per request", c.ID, c.Sent, c.Received, l, c.PublishErrors)
				}
				checkDist(t, c.ID+" round trip", c.E2ELatency, int64(c.Received))
				checkDist(t, c.ID+" round trip from intended", c.E2EIntendedLatency, int64(c.Received))
			}
		})
	}
}
