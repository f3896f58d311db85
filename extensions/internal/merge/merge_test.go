package merge

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/merge/mergetest"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/threshold"
	"github.com/mqbench/xk6-mqbench/internal/verdict"
)

// write puts runners into a fresh run folder and returns it.
func write(t *testing.T, runners ...mergetest.Runner) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "merge-test", "run-1")
	for _, r := range runners {
		if _, err := mergetest.Write(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// load loads and checks a run folder, failing the test on an invalid one.
func load(t *testing.T, dir string) []*Shard {
	t.Helper()
	_, shards, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(shards, DefaultMaxSkew); err != nil {
		t.Fatalf("valid shards refused:\n%v", err)
	}
	return shards
}

// The merge is exact: samples split over N runners, each encoded (V2) and decoded as a shard
// is, merge into the very histogram of all samples (same buckets), and the merged summary
// (from the merged buckets and the runners' exact extremes) equals that of one histogram
// holding every sample. Also through the files: Write, Load, Merge.
func TestExactMerge(t *testing.T) {
	for _, n := range []int{2, 3} {
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		all := hist.New()
		parts := make([]*hist.Hist, n)
		samples := make([][]int64, n)
		for i := range parts {
			parts[i] = hist.New()
		}
		for _, v := range mergetest.Latencies(rng, 60_000, 0.003) {
			i := rng.IntN(n) // uneven shares, as runners' shares are in time
			all.Record(v)
			parts[i].Record(v)
			samples[i] = append(samples[i], v)
		}
		merged := hist.New()
		var stats []hist.Stats
		for _, p := range parts {
			enc, err := p.EncodeV2()
			if err != nil {
				t.Fatal(err)
			}
			d, err := hist.DecodeV2(enc)
			if err != nil {
				t.Fatal(err)
			}
			merged.Merge(d)
			stats = append(stats, p.Snapshot())
		}
		if !reflect.DeepEqual(merged.Buckets(), all.Buckets()) {
			t.Errorf("N=%d: merged buckets differ from the histogram of all samples", n)
		}
		want := all.Snapshot()
		sameStats(t, fmt.Sprintf("N=%d in memory", n), exactStats(merged, stats), want)

		var runners []mergetest.Runner
		for i := range n {
			runners = append(runners, mergetest.Runner{I: i + 1, N: n, Cells: []mergetest.Cell{{ID: "c1", E2E: samples[i]}}})
		}
		s, hs := Merge(load(t, write(t, runners...)))
		sameStats(t, fmt.Sprintf("N=%d through files", n), s.Cells[0].E2ELatency, want)
		if !reflect.DeepEqual(hs["c1"]["e2e"].Buckets(), all.Buckets()) {
			t.Errorf("N=%d through files: merged buckets differ", n)
		}
	}
}

// sameStats: count, min, max and percentiles identical; the mean to float rounding (a sum of
// per-runner sums).
func sameStats(t *testing.T, name string, got, want hist.Stats) {
	t.Helper()
	if got.Count != want.Count || got.Min != want.Min || got.Max != want.Max || !reflect.DeepEqual(got.P, want.P) {
		t.Errorf("%s: merged %+v\nwant %+v", name, got, want)
	}
	if math.Abs(got.Mean-want.Mean) > 1e-9*want.Mean {
		t.Errorf("%s: mean %v, want %v", name, got.Mean, want.Mean)
	}
}

// One runner merged alone reproduces its own summary figures exactly.
func TestMergeOfOneRunner(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	r := mergetest.Runner{I: 1, N: 1, YAML: mergetest.TwoCells, Cells: []mergetest.Cell{
		{ID: "c1", E2E: mergetest.Latencies(rng, 50_000, 0.0004), Dropped: 2},
		{ID: "c2", E2E: mergetest.Latencies(rng, 7_000, 0.02)},
	}}
	s, _ := Merge(load(t, write(t, r)))
	orig, _ := r.Summary()
	for i := range orig.Cells {
		want, got := orig.Cells[i], s.Cells[i]
		got.Hgrm, got.Hdr, got.Hlog = nil, nil, nil // written by Write into the merged folder
		if !reflect.DeepEqual(got, want) {
			t.Errorf("cell %s:\n got %+v\nwant %+v", want.ID, got, want)
		}
	}
	if s.Foreign != orig.Foreign || s.TestRunDurationMs != orig.TestRunDurationMs || s.FinishedAt != orig.FinishedAt || !s.Complete {
		t.Errorf("run figures: got %+v", s)
	}
	if len(s.Runners) != 1 || s.Runners[0].Dir != "runner-1-of-1" || s.Runners[0].Segment != "0:1" || s.Runners[0].Cells[0].DroppedIterations != 2 {
		t.Errorf("runners: %+v", s.Runners)
	}
}

// Counters, ledgers, rates, CPU and timelines add up; extremes and windows span the runners.
func TestMergeSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a := mergetest.Runner{I: 1, N: 2, Cells: []mergetest.Cell{{ID: "c1", E2E: mergetest.Latencies(rng, 1000, 0.01), Dropped: 1}}}
	b := mergetest.Runner{I: 2, N: 2, Cells: []mergetest.Cell{{ID: "c1", E2E: mergetest.Latencies(rng, 3000, 0.01), Dropped: 4,
		Start: mergetest.Start.Add(1500e6)}}}
	s, _ := Merge(load(t, write(t, b, a)))
	sa, _ := a.Summary()
	sb, _ := b.Summary()
	ca, cb, c := sa.Cells[0], sb.Cells[0], s.Cells[0]
	checks := []struct {
		name      string
		got, want any
	}{
		{"sent", c.Sent, ca.Sent + cb.Sent},
		{"received", c.Received, ca.Received + cb.Received},
		{"bytes_sent", c.BytesSent, ca.BytesSent + cb.BytesSent},
		{"sent_warmup", c.SentWarmup, ca.SentWarmup + cb.SentWarmup},
		{"ledger issued", c.Ledger.Issued, ca.Ledger.Issued + cb.Ledger.Issued},
		{"ledger failed", c.Ledger.Failed, ca.Ledger.Failed + cb.Ledger.Failed},
		{"dropped", c.DroppedIterations, int64(5)},
		{"backlog_max (upper bound)", c.BacklogMax, ca.BacklogMax + cb.BacklogMax},
		{"sender_rate", c.SenderRate, ca.SenderRate + cb.SenderRate},
		{"receiver_rate", c.ReceiverRate, ca.ReceiverRate + cb.ReceiverRate},
		{"cpu", c.GeneratorCPUS, ca.GeneratorCPUS + cb.GeneratorCPUS},
		{"cpu per message", c.CPUPerMessageUS, (ca.GeneratorCPUS + cb.GeneratorCPUS) * 1e6 / float64(ca.Sent+cb.Sent)},
		{"timeline length", len(c.Timeline), len(cb.Timeline)},
		{"timeline slot 0", c.Timeline[0].Sent, ca.Timeline[0].Sent + cb.Timeline[0].Sent},
		{"timeline last slot (b only)", c.Timeline[6], cb.Timeline[6]},
		{"e2e count", c.E2ELatency.Count, ca.E2ELatency.Count + cb.E2ELatency.Count},
		{"e2e min", c.E2ELatency.Min, math.Min(ca.E2ELatency.Min, cb.E2ELatency.Min)},
		{"e2e max", c.E2ELatency.Max, math.Max(ca.E2ELatency.Max, cb.E2ELatency.Max)},
		{"started_at: earliest", c.StartedAt, ca.StartedAt},
		{"ended_at: latest", c.EndedAt, cb.EndedAt},
		{"foreign", s.Foreign, sa.Foreign + sb.Foreign},
		{"test run duration: longest", s.TestRunDurationMs, sb.TestRunDurationMs},
		{"runners in order", []int{s.Runners[0].Runner, s.Runners[1].Runner}, []int{1, 2}},
		{"runner 2's cell start", s.Runners[1].Cells[0].StartedAt, cb.StartedAt},
	}
	for _, ch := range checks {
		if !reflect.DeepEqual(ch.got, ch.want) {
			t.Errorf("%s: got %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

// The merged verdict is the verdict on all the run's values, which neither "every runner
// passed" nor "some runner passed" gives. A runner fails p(99) < 10ms when more than 1% of its
// values are slow; the run's slow share is the runners' shares weighted by their sizes.
//
// The reverse of the second case (every runner fails alone, the merge passes) is impossible
// for a percentile: a runner passes p(q) < L when at least q% of its values (the rank rounded
// to nearest) are below L, and if every runner has fewer, so has their union. (Counts differ
// again: every runner may stay under a limit their sum exceeds; the merge judges the sum.)
func TestMergedVerdict(t *testing.T) {
	for _, tc := range []struct {
		name             string
		nA, nB           int
		okA, okB, merged bool
	}{
		// 0.5% and 1.2% slow, equal sizes: 0.85% slow in all, p99 fast. AND of runners: fail.
		{"one fails alone, equal sizes: merged passes", 100_000, 100_000, true, false, true},
		// B five times larger: 1.08% slow in all. OR of runners: pass.
		{"one passes alone, the failing one larger: merged fails", 20_000, 100_000, true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 12))
			la, lb := mergetest.Latencies(rng, tc.nA, 0.005), mergetest.Latencies(rng, tc.nB, 0.012)
			a := mergetest.Runner{I: 1, N: 2, Cells: []mergetest.Cell{{ID: "c1", E2E: la}}}
			b := mergetest.Runner{I: 2, N: 2, Cells: []mergetest.Cell{{ID: "c1", E2E: lb}}}
			dir := write(t, a, b)
			shards := load(t, dir)
			th, err := verdict.New("mq_e2e_latency{cell:c1}", "p(99)<10", "p(99) < 10ms", true)
			if err != nil {
				t.Fatal(err)
			}
			judge := func(sh ...*Shard) results.Summary {
				s, hs := Merge(sh)
				if err := Judge(&s, hs, []verdict.Threshold{th}, nil); err != nil {
					t.Fatal(err)
				}
				return s
			}
			if got := judge(shards[0]).ThresholdsOK; got != tc.okA {
				t.Errorf("runner A alone: ok %v, want %v", got, tc.okA)
			}
			if got := judge(shards[1]).ThresholdsOK; got != tc.okB {
				t.Errorf("runner B alone: ok %v, want %v", got, tc.okB)
			}
			s := judge(shards...)
			// The truth: one histogram of every value, judged as a single run would.
			all := hist.New()
			for _, v := range append(la, lb...) {
				all.Record(v)
			}
			truth := th.Eval(oneCell{all}, 0)
			got := s.Thresholds[0]
			if got.OK != tc.merged || got.OK != truth.OK || got.Value == nil || *got.Value != truth.Value {
				t.Errorf("merged: ok %v value %s; want ok %v, truth ok %v value %v", got.OK, show(got.Value), tc.merged, truth.OK, truth.Value)
			}
			if len(s.Cells[0].Thresholds) != 1 || s.ThresholdsOK != tc.merged || got.EvaluatedBy != "mqbench" || got.Unit != "ms" {
				t.Errorf("threshold rows: %+v, cell %+v", s.Thresholds, s.Cells[0].Thresholds)
			}
		})
	}
}

// oneCell is a single run's data: one cell c1 with an e2e histogram.
type oneCell struct{ h *hist.Hist }

func (o oneCell) CellTags() []map[string]string { return []map[string]string{{"cell": "c1"}} }
func (o oneCell) Trend(_ int, m string) *hist.Hist {
	if m == "mq_e2e_latency" {
		return o.h
	}
	return nil
}
func (o oneCell) Count(int, string) (float64, bool)                   { return 0, false }
func (o oneCell) Gauge(int, string) (float64, float64, float64, bool) { return 0, 0, 0, false }

// Trend thresholds are judged on the exact figures the summary shows (min, max and mean from
// the runners, percentiles never above the exact max), as on one histogram of every value.
func TestTrendThresholdsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	la, lb := mergetest.Latencies(rng, 3000, 0.001), mergetest.Latencies(rng, 5000, 0.002)
	s, hs := Merge(load(t, write(t,
		mergetest.Runner{I: 1, N: 2, Cells: []mergetest.Cell{{ID: "c1", E2E: la}}},
		mergetest.Runner{I: 2, N: 2, Cells: []mergetest.Cell{{ID: "c1", E2E: lb}}})))
	all := hist.New()
	for _, v := range append(la, lb...) {
		all.Record(v)
	}
	var ths []verdict.Threshold
	for _, e := range []string{"max<1000", "min>0", "avg<1000", "med<1000", "p(99.99)<1000", "p(99.9999)<1000", "count>0"} {
		th, err := verdict.New("mq_e2e_latency{cell:c1}", e, e, true)
		if err != nil {
			t.Fatal(err)
		}
		ths = append(ths, th)
	}
	if err := Judge(&s, hs, ths, nil); err != nil {
		t.Fatal(err)
	}
	for i, th := range ths {
		want := th.Eval(oneCell{all}, 0).Value
		got := s.Thresholds[i].Value
		if got == nil || math.Abs(*got-want) > 1e-12*want {
			t.Errorf("%s: merged value %s, one histogram of all values %v", th.K6Expr, show(got), want)
		}
	}
	if got, want := *s.Thresholds[0].Value, s.Cells[0].E2ELatency.Max/1e3; got != want {
		t.Errorf("max threshold judged %v ms, the summary shows %v ms", got, want)
	}
}

// Counters, the ledger, the backlog bound and k6's dropped_iterations are judged on the
// runners' sums; a k6 metric the shards do not carry is refused, not guessed.
func TestJudgeCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	shards := load(t, write(t,
		mergetest.Runner{I: 1, N: 2, Cells: []mergetest.Cell{{ID: "c1", E2E: mergetest.Latencies(rng, 100, 0), Dropped: 1}}, Edit: func(_ *results.Shard, s *results.Summary) {
			s.Cells[0].Ledger.Lost = 2
		}},
		mergetest.Runner{I: 2, N: 2, Cells: []mergetest.Cell{{ID: "c1", E2E: mergetest.Latencies(rng, 300, 0), Dropped: 3}}}))
	s, hs := Merge(shards)
	var ths []verdict.Threshold
	for _, k := range []struct{ key, expr string }{
		{"mq_messages_lost{cell:c1}", "count==0"},       // 2: fails
		{"mq_messages_received{cell:c1}", "count==400"}, // 100 + 300
		{"mq_messages_sent{size:1KB}", "rate>44"},       // 402 over the cell's 5 s measured (k6: over the 9.002 s run)
		{"mq_backlog{cell:c1}", "max<=30"},              // 10 + 20
	} {
		th, err := verdict.New(k.key, k.expr, k.expr, false)
		if err != nil {
			t.Fatal(err)
		}
		ths = append(ths, th)
	}
	k6 := []verdict.K6Threshold{
		{Key: "dropped_iterations{scenario:c1_publish}", Expr: threshold.MustK6("count==0"), Source: "count==0"},
		{Key: "dropped_iterations{cell:c1}", Expr: threshold.MustK6("count<5"), Source: "count < 5"},
	}
	if err := Judge(&s, hs, ths, k6); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		ok    bool
		value float64
	}{{false, 2}, {true, 400}, {true, 402 / 5.0}, {true, 30}, {true, 4}, {false, 4}}
	for i, w := range want {
		got := s.Thresholds[i]
		if got.OK != w.ok || got.Value == nil || math.Abs(*got.Value-w.value) > 1e-9 {
			t.Errorf("%s %s: ok %v value %s, want ok %v value %v", got.Metric, got.Expression, got.OK, show(got.Value), w.ok, w.value)
		}
	}
	// The size-filtered threshold is run-wide (cell ""), as in a single run.
	if s.ThresholdsOK || len(s.Cells[0].Thresholds) != len(want)-1 || s.Thresholds[2].Cell != "" {
		t.Errorf("thresholds_ok %v, cell thresholds %d", s.ThresholdsOK, len(s.Cells[0].Thresholds))
	}
	err := Judge(&s, hs, nil, []verdict.K6Threshold{{Key: "iteration_duration{cell:c1}", Expr: threshold.MustK6("p(95)<100"), Source: "p(95) < 100ms"}})
	if err == nil || !strings.Contains(err.Error(), "iteration_duration{cell:c1}: p(95)<100: k6 judged it inside each runner") {
		t.Errorf("a k6 trend threshold: got %v", err)
	}
}

func show(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(*v)
}
