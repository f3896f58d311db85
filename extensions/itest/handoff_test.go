package itest

import (
	"testing"
	"time"
)

// Producer-only and consume-only cells against real brokers: what the producer-only cell sent
// while its consumers were held back is all received by the consume-only cell after it (the
// producing cell's ledger, closed by the consuming one, says nothing was lost); the consuming
// cell ends as soon as it has taken everything, and a producer-only cell with nobody after it
// calls its messages unconsumed.
func TestHandoff(t *testing.T) {
	for _, broker := range []string{"kafka", "rabbitmq"} {
		t.Run(broker, func(t *testing.T) {
			sideBySide(t)
			r := runScenario(t, "extensions/itest/testdata/handoff-"+broker+".yaml")
			if r.code != 0 || r.summary == nil || len(r.summary.Cells) != 3 {
				t.Fatalf("exit %d, summary written: %v\n%s", r.code, r.summary != nil, r)
			}
			fill, empty, tail := r.summary.Cells[0], r.summary.Cells[1], r.summary.Cells[2]
			owed := fill.Ledger.Issued - fill.Ledger.Failed
			if fill.Received != 0 || fill.Ledger.Lost != 0 || fill.Ledger.Unconsumed != 0 || fill.Ledger.Duplicated != 0 || !fill.LedgerFinal {
				t.Errorf("fill: received %d in its own cell, ledger %+v (final %v): want everything received later, nothing lost", fill.Received, fill.Ledger, fill.LedgerFinal)
			}
			if owed < 3500 || empty.Received != owed || empty.Sent != 0 {
				t.Errorf("empty: received %d of the %d fill handed it (sent %d)", empty.Received, owed, empty.Sent)
			}
			// Every message waited at least the fill cell's drain and the gap between cells.
			if e := empty.E2ELatency; e.Count != int64(empty.Received) || e.Min < 1e6 || e.Max > 30e6 {
				t.Errorf("empty: e2e %+v over %d messages: every one waited for the cell to start, none longer than the run", e, empty.Received)
			}
			if empty.E2ELatency.Min < 1e6 {
				t.Errorf("empty: e2e min %.0fus, but every message waited for the cell to start", empty.E2ELatency.Min)
			}
			started, err1 := time.Parse(time.RFC3339Nano, empty.StartedAt)
			ended, err2 := time.Parse(time.RFC3339Nano, empty.EndedAt)
			if err1 != nil || err2 != nil || ended.Sub(started) > 12*time.Second {
				t.Errorf("empty ran %v (%v %v): want it to end once drained, well before its 20s", ended.Sub(started), err1, err2)
			}
			if tail.Ledger.Unconsumed == 0 || tail.Ledger.Unconsumed+tail.Ledger.Unconfirmed != tail.Ledger.Issued-tail.Ledger.Failed || tail.Ledger.Lost != 0 {
				t.Errorf("tail: ledger %+v: want every message unconsumed, none lost", tail.Ledger)
			}
		})
	}
}
