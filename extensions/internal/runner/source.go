package runner

import (
	"time"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/verdict"
)

// The runner is the data thresholds are judged on (verdict.Source): each cell's histograms,
// counters, ledger and backlog samples.
var (
	_ verdict.Source      = (*Runner)(nil)
	_ verdict.Starter     = (*Runner)(nil)
	_ verdict.StageSource = (*Runner)(nil)
)

// CellStarted reports whether the cell began (its first send, or a consume-only cell's
// hand-off): a cell that did not has no data for its thresholds, though its counters read 0.
func (r *Runner) CellStarted(cell int) bool {
	_, ok := r.cells[cell].tl.started()
	return ok
}

// CellTags are the tags every sample of a cell carries.
func (r *Runner) CellTags() []map[string]string {
	out := make([]map[string]string, len(r.cells))
	for i, c := range r.cells {
		out[i] = catalog.CellTags(c.cell.ID, c.cell.SizeLabel, c.cell.RateLabel(), r.sc.Broker.Type, r.sc.Name, catalog.TestID(r.sc.Name, r.RunIDString()))
	}
	return out
}

// Trend is a cell's distribution of a time metric; nil for other metrics.
func (r *Runner) Trend(cell int, metric string) *hist.Hist {
	c := r.cells[cell]
	return trendFor(metric, c.publish, c.e2e, c.e2eIntended, c.lag)
}

// trendFor is the one of a cell's (or a stage's) distributions that metric names; nil for a
// metric that is not a trend or a distribution not kept (a stage keeps no publish latency).
func trendFor(metric string, publish, e2e, e2eIntended, lag *hist.Hist) *hist.Hist {
	switch metric {
	case catalog.PublishLatency:
		return publish
	case catalog.E2ELatency:
		return e2e
	case catalog.E2EIntendedLatency:
		return e2eIntended
	case catalog.ScheduleLag:
		return lag
	}
	return nil
}

// Count is a cell's counter. The lost, unconfirmed and held counts are only known once the
// cell's drain ended (before that, messages in flight are none of them); duplicates and
// reorders only grow, so their live value is judged.
func (r *Runner) Count(cell int, metric string) (float64, bool) {
	c := r.cells[cell]
	switch metric {
	case catalog.MessagesSent:
		return float64(c.sent.Load()), true
	case catalog.MessagesAcked:
		return float64(c.acked.Load()), true
	case catalog.MessagesReceived:
		return float64(c.received.Load()), true
	case catalog.PublishErrors:
		return float64(c.errors.Load()), true
	case catalog.BytesSent:
		return float64(c.bytesSent.Load()), true
	case catalog.BytesReceived:
		return float64(c.bytesReceived.Load()), true
	case catalog.MessagesLost, catalog.MessagesUnconfirmed, catalog.MessagesHeld:
		if !c.settled.Load() {
			return 0, false
		}
		t := c.ledger.Tally()
		return float64(map[string]uint64{catalog.MessagesLost: t.Lost, catalog.MessagesUnconfirmed: t.Unconfirmed, catalog.MessagesHeld: t.Held}[metric]), true
	case catalog.MessagesDuplicated, catalog.MessagesReordered:
		t := c.ledger.Tally()
		if metric == catalog.MessagesDuplicated {
			return float64(t.Duplicated), t.Issued > 0
		}
		return float64(t.Reordered), t.Issued > 0
	}
	return 0, false
}

// Gauge is a cell's backlog samples, or the broker's own (mq_broker_*).
func (r *Runner) Gauge(cell int, metric string) (last, lo, hi float64, ok bool) {
	if metric != catalog.Backlog {
		return r.cells[cell].brokerGauge(metric) // mq_broker_* (brokerstats.go)
	}
	l, mn, mx, seen := r.cells[cell].backlog.get()
	return float64(l), float64(mn), float64(mx), seen
}

// Elapsed is the test run's duration so far (k6 divides counters by it for "rate").
func (r *Runner) Elapsed() time.Duration {
	if r.started.IsZero() {
		return 0
	}
	return time.Since(r.started)
}
