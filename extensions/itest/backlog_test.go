package itest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A backlog build-and-drain cell against real brokers: the consumers are held back until the
// stated backlog waits, then drain it while the producers go on; every message still arrives,
// the drain is faster than the publish rate, and the backlog returns to (nearly) zero.
func TestBacklogDrain(t *testing.T) {
	for _, broker := range []string{"rabbitmq", "kafka"} {
		t.Run(broker, func(t *testing.T) {
			sideBySide(t)
			r := runScenario(t, "extensions/itest/testdata/backlog-"+broker+".yaml")
			if r.code != 0 || r.summary == nil || len(r.summary.Cells) != 1 {
				t.Fatalf("exit %d, summary written: %v\n%s", r.code, r.summary != nil, r)
			}
			c := r.summary.Cells[0]
			b := c.BacklogDrain
			if b == nil {
				t.Fatalf("no backlog_drain in summary.json\n%s", r)
			}
			if c.Received != c.Sent || c.Ledger.Lost != 0 || c.Ledger.Duplicated != 0 {
				t.Errorf("sent %d received %d ledger %+v", c.Sent, c.Received, c.Ledger)
			}
			// 8,000 at 2,000/s builds in ~4 s; the held-back consumers let nothing through.
			if !b.Reached || b.Peak < b.Target || b.BuildS < 2.5 || b.BuildS > 8 {
				t.Errorf("built: reached %v, peak %d of %d in %.1fs (want ~4s)", b.Reached, b.Peak, b.Target, b.BuildS)
			}
			if !b.Drained || b.DrainS <= 0 || b.DrainRate <= float64(c.Rate) || b.NetDrainRate <= 0 {
				t.Errorf("drain: drained %v in %.2fs, %.0f/s received, net %.0f/s: want drained faster than the %d/s publish rate", b.Drained, b.DrainS, b.DrainRate, b.NetDrainRate, c.Rate)
			}
			// The messages that waited show their wait in the end-to-end latency.
			if c.E2ELatency.Max < 2e6 {
				t.Errorf("e2e max %.0fus: messages held back ~4s should show it", c.E2ELatency.Max)
			}
			for _, phase := range []string{"building", "draining", "drained"} {
				if st := b.PublishLatency[phase]; st.Count == 0 || st.Min <= 0 {
					t.Errorf("publish latency while %s: %+v", phase, st)
				}
			}
			if !strings.Contains(r.stdout, "backlog build and drain") {
				t.Errorf("console has no backlog table:\n%s", r)
			}
			html, err := os.ReadFile(filepath.Join(r.resultsDir, "report.html"))
			if err != nil || !strings.Contains(string(html), `<p class="drain">consumers held back`) {
				t.Errorf("report.html (%v) has no backlog section", err)
			}
		})
	}
}

// A backlog still queued when the drain ends is held, not lost: Artemis (amqp10, address
// plain) tells its depth through its management address, and what the consumer took between
// the ledger's freeze and that answer counts as held too. Every confirmed message is then
// either received or held.
func TestBacklogHeldArtemis(t *testing.T) {
	// The queue is left holding its backlog (Artemis deletes only empty queues).
	t.Setenv("MQB_ITEST_HELD_QUEUE", strconv.FormatInt(time.Now().UnixNano(), 36))
	r := runScenario(t, "extensions/itest/testdata/held-artemis.yaml")
	if r.code != 0 || r.summary == nil || len(r.summary.Cells) != 1 {
		t.Fatalf("exit %d, summary written: %v\n%s", r.code, r.summary != nil, r)
	}
	l := r.summary.Cells[0].Ledger
	if l.Lost != 0 || l.Held < 1000 || l.Unique == 0 {
		t.Fatalf("ledger %+v: want some received, nothing lost and the queued backlog (thousands) held", l)
	}
	if got := l.Unique + l.Held + l.Unconfirmed + l.Failed; got != l.Issued {
		t.Errorf("ledger %+v: received %d + held %d + unconfirmed %d + failed %d = %d, want issued %d", l, l.Unique, l.Held, l.Unconfirmed, l.Failed, got, l.Issued)
	}
}
