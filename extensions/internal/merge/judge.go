package merge

import (
	"fmt"
	"sort"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/verdict"
)

// Data is the merged run as thresholds see it (verdict.Source), cell by cell in the
// summary's order.
type Data struct {
	s  *results.Summary
	hs results.Hists
}

var (
	_ verdict.Source  = (*Data)(nil)
	_ verdict.Starter = (*Data)(nil)
)

// CellStarted: a cell no runner started has no data, though its summed counters read 0.
func (d *Data) CellStarted(cell int) bool { return d.s.Cells[cell].Status != "not started" }

// NewData wraps a merged summary and its distributions (Merge's results).
func NewData(s *results.Summary, hs results.Hists) *Data { return &Data{s, hs} }

// CellTags are the tags every sample of a cell carried in each runner.
func (d *Data) CellTags() []map[string]string {
	out := make([]map[string]string, len(d.s.Cells))
	for i, c := range d.s.Cells {
		out[i] = catalog.CellTags(c.ID, c.SizeLabel, c.RateLabel(), d.s.Broker.Type, d.s.Scenario, catalog.TestID(d.s.Scenario, d.s.RunID))
	}
	return out
}

// Trend is a cell's merged distribution of a time metric (never nil for one: an empty
// histogram is k6's empty metric); nil for other metrics.
func (d *Data) Trend(cell int, metric string) *hist.Hist {
	kind, ok := catalog.TrendKind(metric)
	if !ok {
		return nil
	}
	if h := d.hs[d.s.Cells[cell].ID][kind]; h != nil {
		return h
	}
	return hist.New()
}

// Count is a cell's summed counter. The lost count is known once every runner's ledger was
// final (as in a single run: before the drain ends, a message in flight is not lost).
func (d *Data) Count(cell int, metric string) (float64, bool) {
	c := &d.s.Cells[cell]
	switch metric {
	case catalog.MessagesSent:
		return float64(c.Sent), true
	case catalog.MessagesAcked:
		return float64(c.Acked), true
	case catalog.MessagesReceived:
		return float64(c.Received), true
	case catalog.PublishErrors:
		return float64(c.PublishErrors), true
	case catalog.BytesSent:
		return float64(c.BytesSent), true
	case catalog.BytesReceived:
		return float64(c.BytesReceived), true
	case catalog.MessagesLost:
		return float64(c.Ledger.Lost), c.Finalized
	case catalog.MessagesUnconfirmed:
		return float64(c.Ledger.Unconfirmed), c.Finalized
	case catalog.MessagesHeld:
		return float64(c.Ledger.Held), c.Finalized
	case catalog.MessagesDuplicated:
		return float64(c.Ledger.Duplicated), c.Ledger.Issued > 0
	case catalog.MessagesReordered:
		return float64(c.Ledger.Reordered), c.Ledger.Issued > 0
	case catalog.DroppedIterations: // k6's, summed over the runners' shards
		return float64(c.DroppedIterations), true
	}
	return 0, false
}

// Gauge is mq_backlog: the runners' summed peaks for value, min and max alike. Runners keep
// no common backlog timeline, so the sum of their peaks is the tightest figure the shards
// give, and an upper bound: a "value < L" or "max < L" that holds on it holds on the run.
func (d *Data) Gauge(cell int, metric string) (last, lo, hi float64, ok bool) {
	c := &d.s.Cells[cell]
	if metric != catalog.Backlog || c.Status == "not started" {
		return 0, 0, 0, false
	}
	v := float64(c.BacklogMax)
	return v, v, v, true
}

// Judge evaluates every threshold on the merged run and fills s.Thresholds, each cell's
// thresholds and s.ThresholdsOK, as a single run's summary has them: mqbench's thresholds in
// order, then k6's sorted by key and expression. k6's dropped_iterations is judged from the
// cells' summed counts (a run drops what its runners dropped); any other k6 metric stayed
// inside the runners and cannot be judged: the error names it.
func Judge(s *results.Summary, hs results.Hists, mq []verdict.Threshold, k6 []verdict.K6Threshold) error {
	d := NewData(s, hs)
	elapsed := time.Duration(s.TestRunDurationMs * float64(time.Millisecond))
	var out []results.Threshold
	for i := range mq {
		th := &mq[i]
		if why := refuseLatency(s, th); why != "" {
			return fmt.Errorf("%s", why)
		}
		r := th.Eval(d, elapsed)
		t := results.Threshold{Metric: th.Key, Cell: th.Cell, Expression: th.K6Expr, Source: th.Source,
			OK: r.OK, EvaluatedBy: "mqbench", AbortOnFail: th.AbortOnFail}
		if r.Measured {
			v := r.Value
			t.Value = &v
		}
		if th.Time {
			t.Unit = "ms"
		}
		out = append(out, t)
	}
	k6 = append([]verdict.K6Threshold(nil), k6...)
	sort.SliceStable(k6, func(i, j int) bool {
		return k6[i].Key < k6[j].Key || k6[i].Key == k6[j].Key && k6[i].Expr.K6() < k6[j].Expr.K6()
	})
	for _, k := range k6 {
		th := verdict.Of(k.Key, k.Expr, k.Source, false)
		if th.Metric != "dropped_iterations" || (th.Expr.Agg != "count" && th.Expr.Agg != "rate") {
			return fmt.Errorf("threshold %s: %s: k6 judged it inside each runner and the shards do not carry it, so the merge cannot judge it", k.Key, th.K6Expr)
		}
		r := th.Eval(d, elapsed) // Count serves the cells' summed dropped iterations
		v := r.Value
		// The merge judged it, from k6's counts: "mqbench" says who gave the verdict.
		out = append(out, results.Threshold{Metric: k.Key, Cell: th.Cell, Expression: th.K6Expr, Source: k.Source,
			OK: th.Expr.Holds(v), Value: &v, EvaluatedBy: "mqbench"})
	}
	s.Thresholds, s.ThresholdsOK = out, true
	for _, t := range out {
		s.ThresholdsOK = s.ThresholdsOK && t.OK
	}
	for i := range s.Cells {
		c := &s.Cells[i]
		c.Thresholds = nil
		for _, t := range out {
			if t.Cell == c.ID {
				c.Thresholds = append(c.Thresholds, t)
			}
		}
	}
	return nil
}
