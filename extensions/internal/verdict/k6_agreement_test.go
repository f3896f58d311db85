package verdict

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"go.k6.io/k6/v2/metrics"
)

// oneCell is a Source with one cell holding a distribution and counters.
type oneCell struct {
	h      *hist.Hist
	counts map[string]float64
}

func (o oneCell) CellTags() []map[string]string {
	return []map[string]string{{"cell": "c1", "size": "1KB", "rate": "1000"}}
}
func (o oneCell) Trend(_ int, m string) *hist.Hist {
	if m == "mq_e2e_latency" {
		return o.h
	}
	return nil
}
func (o oneCell) Count(_ int, m string) (float64, bool) { v, ok := o.counts[m]; return v, ok }
func (o oneCell) Gauge(int, string) (float64, float64, float64, bool) {
	return 0, 0, 0, false
}

// k6Value runs one expression through k6's own threshold code on a sink and returns k6's
// verdict and the value it compared (from the sink, as k6's summary reports it).
func k6Verdict(t *testing.T, sink metrics.Sink, expr string, d time.Duration) bool {
	t.Helper()
	ths := metrics.NewThresholds([]string{expr})
	if err := ths.Parse(); err != nil {
		t.Fatalf("k6 rejects %q: %v", expr, err)
	}
	ok, err := ths.Run(sink, d)
	if err != nil {
		t.Fatalf("k6 run %q: %v", expr, err)
	}
	return ok
}

// The same expressions, judged by k6 on every raw sample and by mqbench on its histogram,
// agree: percentiles within the histogram's 3 significant digits, count/min/max/avg exactly.
// The limits sit on both sides of each measured value, so every verdict is exercised.
func TestAgreesWithK6OnRawSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		gen  func() float64 // ms
		n    int
	}{
		{"lognormal around 1ms", func() float64 { return math.Exp(rng.NormFloat64()*0.6) * 1.0 }, 200_000},
		{"bimodal with a 20ms tail", func() float64 {
			if rng.Float64() < 0.02 {
				return 20 + rng.Float64()*5
			}
			return 0.2 + rng.Float64()*0.3
		}, 100_000},
		{"uniform 1us..50ms", func() float64 { return 0.001 + rng.Float64()*50 }, 50_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sink := metrics.NewTrendSink()
			h := hist.New()
			for i := 0; i < tc.n; i++ {
				ms := tc.gen()
				ns := int64(ms * 1e6)
				h.Record(ns)
				sink.Add(metrics.Sample{Value: float64(ns) / 1e6}) // k6 keeps time trends in ms
			}
			src := oneCell{h: h}
			for _, agg := range []struct {
				name string
				k6   func() float64
				tol  float64 // relative
			}{
				{"avg", sink.Avg, 1e-9}, {"min", sink.Min, 1e-9}, {"max", sink.Max, 1e-9},
				{"med", func() float64 { return sink.P(0.5) }, 1e-3},
				{"p(90)", func() float64 { return sink.P(0.9) }, 1e-3},
				{"p(99)", func() float64 { return sink.P(0.99) }, 1e-3},
				{"p(99.9)", func() float64 { return sink.P(0.999) }, 1.5e-3},
			} {
				want := agg.k6()
				th, err := New("mq_e2e_latency{cell:c1}", agg.name+"<"+fmtF(want), agg.name+" < x", true)
				if err != nil {
					t.Fatal(err)
				}
				got := th.Eval(src, time.Minute)
				if !got.Measured || math.Abs(got.Value-want) > agg.tol*want+1e-6 {
					t.Errorf("%s: mqbench %.6f ms, k6 %.6f ms (relative difference %.2e, allowed %.0e)", agg.name, got.Value, want, math.Abs(got.Value-want)/want, agg.tol)
				}
				// Limits 1% above and below the measured value: k6 and mqbench must give
				// the same verdict for each.
				for _, limit := range []float64{want * 1.01, want * 0.99} {
					for _, op := range []string{"<", ">"} {
						expr := agg.name + op + fmtF(limit)
						th, _ := New("mq_e2e_latency{cell:c1}", expr, expr, true)
						if k6, mq := k6Verdict(t, sink, expr, time.Minute), th.Eval(src, time.Minute).OK; k6 != mq {
							t.Errorf("%s: k6 says %v, mqbench says %v", expr, k6, mq)
						}
					}
				}
			}
		})
	}
}

// Counters: count and rate (count per second of test run) as k6 computes them, on a source
// that cannot tell a cell's measured time (a Runner can: its rate is per cell, rate_test.go).
func TestCounterAgreesWithK6(t *testing.T) {
	sink := &metrics.CounterSink{}
	now := time.Now()
	for i := 0; i < 1234; i++ {
		sink.Add(metrics.Sample{Value: 1, Time: now})
	}
	src := oneCell{h: hist.New(), counts: map[string]float64{"mq_messages_lost": 1234}}
	for _, expr := range []string{"count==0", "count<1234", "count<=1234", "count>1000", "rate<10", "rate<30", "rate>=20.5"} {
		th, err := New("mq_messages_lost{cell:c1}", expr, expr, false)
		if err != nil {
			t.Fatal(err)
		}
		d := 60 * time.Second
		if k6, mq := k6Verdict(t, sink, expr, d), th.Eval(src, d).OK; k6 != mq {
			t.Errorf("%s: k6 says %v, mqbench says %v", expr, k6, mq)
		}
	}
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
