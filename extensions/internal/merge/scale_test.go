package merge

import (
	"math"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/merge/mergetest"
	"github.com/mqbench/xk6-mqbench/internal/plan"
)

// Generous bounds for a merge at the k6-operator's scale (a noisy 2-core machine running the
// whole unit suite): speed is measured by make bench's merge section, not asserted here.
const (
	scaleTimeBound = 30 * time.Second
	scaleMemBound  = 2 << 30
)

// A hundred runners (and ten on one shared destination) of a 5-cell run, each shard the
// size a runner of 10,000 msg/s per cell for 30 s leaves: the merge keeps every count, the
// ledger, every histogram bucket, and judges the thresholds, within generous bounds.
func TestMergeAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 110 shards")
	}
	for _, tc := range []struct {
		name string
		sy   mergetest.Synthetic
	}{
		{"100 runners", mergetest.Synthetic{Runners: 100, Rate: 10_000, Duration: 30 * time.Second, Seed: 1, Distinct: 10}},
		{"10 runners, shared destination", mergetest.Synthetic{Runners: 10, Rate: 10_000, Duration: 30 * time.Second, Seed: 2, Shared: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "merge-scale", "run-1")
			gen := time.Now()
			want, err := mergetest.WriteSynthetic(dir, tc.sy)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d shards written in %v", tc.sy.Runners, time.Since(gen).Round(time.Millisecond))
			runtime.GC()
			start := time.Now()
			shards := load(t, dir)
			s, hs := Merge(shards)
			sc, err := Scenario(shards)
			if err != nil {
				t.Fatal(err)
			}
			p := plan.Build(sc, s.RunID, 0)
			if err := Judge(&s, hs, p.Verdicts, p.K6Judged()); err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			t.Logf("%d shards merged in %v; heap %d MB, %d MB from the OS (generation included)", len(shards), took.Round(time.Millisecond), ms.HeapAlloc>>20, ms.Sys>>20)
			if took > scaleTimeBound || ms.Sys > scaleMemBound {
				t.Errorf("merge took %v and the process %d MB: beyond %v or %d MB", took, ms.Sys>>20, scaleTimeBound, scaleMemBound>>20)
			}
			if len(shards) != tc.sy.Runners || len(s.Runners) != tc.sy.Runners || len(s.Cells) != len(mergetest.SyntheticSizes) {
				t.Fatalf("%d shards, %d runners, %d cells", len(shards), len(s.Runners), len(s.Cells))
			}
			// Realistic shards: a runner's e2e distribution fills thousands of buckets.
			if got := shards[0].dists["c1"]["e2e"].Populated(); got < 1000 {
				t.Errorf("runner 1's c1 e2e histogram has %d populated buckets, want thousands", got)
			}
			for i, c := range s.Cells {
				l := c.Ledger
				checks := []struct {
					name      string
					got, want any
				}{
					{"sent", c.Sent, want.Sent[i]},
					{"received", c.Received, want.Received[i]},
					{"ledger issued", l.Issued, want.Ledger[i].Issued},
					{"ledger unique", l.Unique, want.Ledger[i].Unique},
					{"ledger lost", l.Lost, want.Ledger[i].Lost},
					{"ledger duplicated", l.Duplicated, want.Ledger[i].Duplicated},
					{"publish count", c.PublishLatency.Count, want.Counts[i]["publish"]},
					{"e2e count", c.E2ELatency.Count, want.Counts[i]["e2e"]},
					{"e2e_intended count", c.E2EIntendedLatency.Count, want.Counts[i]["e2e_intended"]},
					{"schedule_lag count", c.ScheduleLag.Count, want.Counts[i]["schedule_lag"]},
					{"e2e histogram count", hs[c.ID]["e2e"].Count(), want.E2E[i].Count()},
				}
				for _, ch := range checks {
					if !reflect.DeepEqual(ch.got, ch.want) {
						t.Errorf("cell %s %s: got %v, want %v", c.ID, ch.name, ch.got, ch.want)
					}
				}
				if !reflect.DeepEqual(hs[c.ID]["e2e"].Buckets(), want.E2E[i].Buckets()) {
					t.Errorf("cell %s: merged e2e buckets differ from one histogram of every runner's values", c.ID)
				}
				// Log-uniform over [lo, hi]: the q-quantile is lo·(hi/lo)^q (µs in the summary).
				for _, q := range []struct {
					key string
					q   float64
				}{{"p50", 0.5}, {"p99", 0.99}} {
					truth := mergetest.LatencyLo * math.Pow(mergetest.LatencyHi/mergetest.LatencyLo, q.q) / 1e3
					if got := c.E2ELatency.P[q.key]; math.Abs(got-truth) > 0.05*truth {
						t.Errorf("cell %s e2e %s: %.0f µs, want within 5%% of %.0f µs", c.ID, q.key, got, truth)
					}
				}
			}
			judged := 0
			for _, th := range s.Thresholds {
				if th.Metric != "mq_e2e_latency{cell:"+th.Cell+"}" {
					continue
				}
				judged++
				c := s.Cells[0]
				for _, sc := range s.Cells {
					if sc.ID == th.Cell {
						c = sc
					}
				}
				if !th.OK || th.Value == nil || math.Abs(*th.Value-c.E2ELatency.P["p99"]/1e3) > 1e-9*(*th.Value) {
					t.Errorf("%s %s: ok %v value %s, want ok at the summary's p99 %v ms", th.Metric, th.Expression, th.OK, show(th.Value), c.E2ELatency.P["p99"]/1e3)
				}
			}
			if judged != len(s.Cells) {
				t.Errorf("%d e2e thresholds judged, want one per cell: %+v", judged, s.Thresholds)
			}
		})
	}
}
