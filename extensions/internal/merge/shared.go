package merge

import (
	"fmt"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/ledger"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/verdict"
)

// A shared destination's shards (results.Shard.Shared): every runner's consumers received
// some of every runner's messages, so the runners' ledgers cannot be summed; their records
// are unioned (ledger.Merge). Latencies crossed clocks: each runner corrected its own with
// its measured offset, and the clock section says how far that can still be off.

// wellAbove is how many times the clock bound a latency threshold's limit must be for the
// merge to judge it: below that, the correction's remaining error could decide the verdict.
const wellAbove = 10

// checkShared lists what keeps shared shards from making one run: every shard shared or
// none, and every cell's ledger record present.
func checkShared(shards []*Shard) []string {
	var out []string
	first := shards[0].Manifest.Shared
	for _, sh := range shards {
		m := &sh.Manifest
		if m.Shared != first {
			out = append(out, fmt.Sprintf("%s: shared destination %v, but %s's %v: the runners ran different scenarios", sh.Name, m.Shared, shards[0].Name, first))
			continue
		}
		if !m.Shared || sh.Run == nil {
			continue
		}
		for _, c := range sh.Run.Cells {
			if _, ok := m.Ledgers[c.ID]; !ok {
				out = append(out, fmt.Sprintf("%s: %s has no ledger of cell %s (a shared destination's ledgers are merged, not summed)", sh.Name, results.ShardFile, c.ID))
			}
		}
	}
	return out
}

// maxUncertainty: a runner whose offset is known less precisely than this measured through
// a congested or distant path; its latencies would be corrected by a guess.
const maxUncertainty = 100 * time.Millisecond

// checkSharedLedgers: each cell's records make one ledger, and each runner's clock was
// measured without error and within maxUncertainty.
func checkSharedLedgers(shards []*Shard) []string {
	var out []string
	if !shards[0].Manifest.Shared {
		return nil
	}
	for _, c := range shards[0].Run.Cells {
		var recs []ledger.Record
		for _, sh := range shards {
			recs = append(recs, sh.Manifest.Ledgers[c.ID])
		}
		if _, err := ledger.Merge(recs); err != nil {
			out = append(out, fmt.Sprintf("cell %s: the runners' ledgers do not make one: %v", c.ID, err))
		}
	}
	for _, sh := range shards {
		k := sh.Manifest.Clock
		switch {
		case k == nil || k.Reference == "":
		case k.Error != "":
			out = append(out, fmt.Sprintf("%s: clock offset not measured throughout the run: %s", sh.Name, k.Error))
		case time.Duration(k.UncertaintyNS) > maxUncertainty:
			out = append(out, fmt.Sprintf("%s: clock offset %s known only to ±%s (beyond %s): its latencies cannot be corrected", sh.Name, time.Duration(k.OffsetNS), time.Duration(k.UncertaintyNS), maxUncertainty))
		}
	}
	return out
}

// mergeShared replaces the summed ledgers with the union of the runners' records, and adds
// the clock section.
func mergeShared(s *results.Summary, shards []*Shard) {
	for i := range s.Cells {
		c := &s.Cells[i]
		var recs []ledger.Record
		for _, sh := range shards {
			recs = append(recs, sh.Manifest.Ledgers[c.ID])
		}
		if t, err := ledger.Merge(recs); err == nil {
			c.Ledger = t
		} else {
			c.Ledger = ledger.Tally{} // Check refused such shards; never a sum that double counts
			c.Finalized = false
		}
	}
	s.Clock = runClock(s, shards)
}

// runClock is each runner's offset and each cell's bound on a cross-runner latency: the
// largest bound of a producing runner plus the largest of a consuming one. Runners that did
// not measure (no reference) are taken as exact when every runner ran on one host, and
// leave the bound unknown otherwise.
func runClock(s *results.Summary, shards []*Shard) *results.RunClock {
	rc := &results.RunClock{}
	oneHost := true
	for _, sh := range shards {
		oneHost = oneHost && sh.Manifest.Host == shards[0].Manifest.Host
	}
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	for _, sh := range shards {
		m := &sh.Manifest
		r := results.RunnerClock{Runner: m.Runner, Role: m.Role}
		if k := m.Clock; k != nil {
			r.Reference, r.OffsetMs, r.UncertaintyMs, r.TestOnlySkewMs = k.Reference, ms(k.OffsetNS), ms(k.UncertaintyNS), ms(k.TestOnlySkewNS)
			for _, cc := range k.Cells {
				r.MaxDriftMs = max(r.MaxDriftMs, ms(abs(cc.DriftNS)))
			}
		}
		rc.Runners = append(rc.Runners, r)
	}
	for _, c := range s.Cells {
		var prod, cons int64
		measured := true
		for _, sh := range shards {
			m := &sh.Manifest
			var b int64
			switch {
			case m.Clock != nil && m.Clock.Reference != "" && m.Clock.Error == "":
				b = cellBound(m.Clock, c.ID)
			case oneHost && (m.Clock == nil || m.Clock.TestOnlySkewNS == 0):
				b = 0 // one host, one clock
			default:
				measured = false
			}
			if m.Role != "consume" {
				prod = max(prod, b)
			}
			if m.Role != "produce" {
				cons = max(cons, b)
			}
		}
		rc.Cells = append(rc.Cells, results.CellBound{ID: c.ID, BoundMs: ms(prod + cons), Measured: measured})
	}
	return rc
}

func cellBound(k *results.ShardClock, id string) int64 {
	for _, cc := range k.Cells {
		if cc.ID == id {
			return cc.BoundNS
		}
	}
	return k.UncertaintyNS
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// refuseLatency says why a latency threshold of a shared run gets no verdict: its limit is
// not well above the cell's clock bound, or the bound is unknown. "" when it can be judged.
func refuseLatency(s *results.Summary, th *verdict.Threshold) string {
	if s.Clock == nil || (th.Metric != catalog.E2ELatency && th.Metric != catalog.E2EIntendedLatency) {
		return ""
	}
	for _, cb := range s.Clock.Cells {
		if th.Cell != "" && th.Cell != cb.ID {
			continue
		}
		switch {
		case !cb.Measured:
			return fmt.Sprintf("threshold %s %s: no verdict: the runners ran on several hosts and some runner's clock offset was not measured (no MQ_CLOCK_REF, or the measurement failed), so cross-runner latencies are unbounded", th.Key, th.K6Expr)
		case th.Expr.Limit < wellAbove*cb.BoundMs:
			return fmt.Sprintf("threshold %s %s: no verdict: its limit %g ms is not %d× the clock bound %.3f ms of cell %s", th.Key, th.K6Expr, th.Expr.Limit, wellAbove, cb.BoundMs, cb.ID)
		}
	}
	return ""
}
