package merge

import (
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/ledger"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/threshold"
	"github.com/mqbench/xk6-mqbench/internal/verdict"
)

// sharedShards is a shared run of 2 producer runners and 1 consumer runner, one cell c1: each
// producer sent 5 messages, the consumer received all but runner 2's seq 4. clock gives each
// runner's clock (nil: none recorded), hosts each runner's host.
func sharedShards(clock []*results.ShardClock, hosts []string) []*Shard {
	var ls []*ledger.Ledger
	for i := 1; i <= 3; i++ {
		l := ledger.New(1, 1)
		l.SetShared(3, i)
		ls = append(ls, l)
	}
	for i := 0; i < 2; i++ {
		for range 5 {
			ls[i].Confirmed(0, ls[i].Issue(0))
		}
	}
	for r := 1; r <= 2; r++ {
		for s := range uint64(5) {
			if r != 2 || s != 4 {
				ls[2].ReceiveFrom(r, 0, s, 0, 0)
			}
		}
	}
	roles := []string{"produce", "produce", "consume"}
	var out []*Shard
	for i, l := range ls {
		l.Freeze()
		out = append(out, &Shard{Name: "runner-" + string(rune('1'+i)) + "-of-3",
			Manifest: results.Shard{Runner: i + 1, Runners: 3, Shared: true, Role: roles[i], Host: hosts[i], Clock: clock[i],
				Ledgers: map[string]ledger.Record{"c1": l.Record(i + 1)}},
			Run: &results.Run{Summary: results.Summary{Cells: []results.Cell{{ID: "c1"}}}}})
	}
	return out
}

func clk(offsetUs, uncUs, boundUs int64) *results.ShardClock {
	return &results.ShardClock{Reference: "ref:1", OffsetNS: offsetUs * 1000, UncertaintyNS: uncUs * 1000,
		Cells: []results.CellClock{{ID: "c1", BoundNS: boundUs * 1000}}}
}

// The ledgers are unioned, not summed; the clock bound is the worst producer's plus the worst
// consumer's; latency thresholds whose limit is not 10× the bound get no verdict.
func TestMergeShared(t *testing.T) {
	one := []string{"h", "h", "h"}
	three := []string{"a", "b", "c"}
	e2e := func(limit float64) *verdict.Threshold {
		return &verdict.Threshold{Metric: "mq_e2e_latency", Key: "mq_e2e_latency{cell:c1}", Cell: "c1", K6Expr: "p(99)<x", Expr: threshold.Expr{Agg: "p", P: 99, Op: "<", Limit: limit}}
	}
	cases := []struct {
		name      string
		clock     []*results.ShardClock
		hosts     []string
		boundMs   float64
		measured  bool
		limit     float64
		refusal   string
		checkWant string
	}{
		{"measured: 0.3 + 0.5 ms", []*results.ShardClock{clk(10, 20, 300), clk(-5, 20, 200), clk(2000, 40, 500)}, three, 0.8, true, 50, "", ""},
		{"limit not 10× the bound", []*results.ShardClock{clk(10, 20, 300), clk(-5, 20, 200), clk(2000, 40, 500)}, three, 0.8, true, 5, "not 10× the clock bound 0.800 ms", ""},
		{"one host, no reference: one clock", []*results.ShardClock{nil, nil, nil}, one, 0, true, 1, "", ""},
		{"several hosts, no reference: unbounded", []*results.ShardClock{nil, nil, nil}, three, 0, false, 1000, "no MQ_CLOCK_REF", ""},
		{"offset known too roughly", []*results.ShardClock{clk(10, 20, 300), clk(0, 150_000, 200), clk(0, 40, 500)}, three, 0.8, true, 5000, "", "known only to ±150ms"},
		{"measurement failed", []*results.ShardClock{clk(10, 20, 300), {Reference: "ref:1", Error: "clock reference ref:1: refused"}, clk(0, 40, 500)}, three, 0, false, 5000, "offset was not measured", "not measured throughout the run"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			shards := sharedShards(c.clock, c.hosts)
			probs := strings.Join(append(checkShared(shards), checkSharedLedgers(shards)...), "; ")
			if (c.checkWant == "") != (probs == "") || !strings.Contains(probs, c.checkWant) {
				t.Fatalf("check: %q, want %q", probs, c.checkWant)
			}
			s := results.Summary{Cells: []results.Cell{{ID: "c1", Finalized: true}}}
			mergeShared(&s, shards)
			if l := s.Cells[0].Ledger; l.Issued != 10 || l.Unique != 9 || l.Lost != 1 || l.Duplicated != 0 {
				t.Errorf("ledger %+v: want 10 issued, 9 received, 1 lost", l)
			}
			cb := s.Clock.Cells[0]
			if cb.Measured != c.measured || (c.measured && (cb.BoundMs < c.boundMs-1e-9 || cb.BoundMs > c.boundMs+1e-9)) {
				t.Errorf("bound %+v, want %.3f ms measured %v", cb, c.boundMs, c.measured)
			}
			got := refuseLatency(&s, e2e(c.limit))
			if (c.refusal == "") != (got == "") || !strings.Contains(got, c.refusal) {
				t.Errorf("refusal %q, want %q", got, c.refusal)
			}
		})
	}
	// Shared and per-runner shards do not make one run.
	mixed := sharedShards([]*results.ShardClock{nil, nil, nil}, one)
	mixed[1].Manifest.Shared = false
	if p := checkShared(mixed); len(p) != 1 || !strings.Contains(p[0], "ran different scenarios") {
		t.Errorf("mixed shards: %v", p)
	}
}
