package jsmodule

import (
	"math"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"go.k6.io/k6/v2/metrics"
)

// The bounded sink answers k6's trend statistics like k6's own sink (count, min, max, avg
// exactly; percentiles within the histogram's 0.1%), and replaces iteration_duration's sink
// only when the scenario does not judge that metric.
func TestBoundedTrend(t *testing.T) {
	b, k := newBoundedTrend(), metrics.NewTrendSink()
	for i := 1; i <= 10000; i++ {
		s := metrics.Sample{Value: float64(i%977) * 0.013}
		b.Add(s)
		k.Add(s)
	}
	got := b.Format(0)
	for name, want := range map[string]float64{"min": k.Min(), "max": k.Max(), "avg": k.Avg(), "count": float64(k.Count())} {
		if math.Abs(got[name]-want) > 1e-9*math.Max(1, want) {
			t.Errorf("%s: %v, k6 %v", name, got[name], want)
		}
	}
	for name, q := range map[string]float64{"med": 0.5, "p(90)": 0.9, "p(95)": 0.95} {
		if want := k.P(q); math.Abs(got[name]-want) > 0.002*want+0.013 {
			t.Errorf("%s: %v, k6 %v", name, got[name], want)
		}
	}

	reg := metrics.NewRegistry()
	bm := metrics.RegisterBuiltinMetrics(reg)
	boundIterationDuration(reg, &scenario.Scenario{})
	if _, ok := bm.IterationDuration.Sink.(*boundedTrend); !ok {
		t.Errorf("iteration_duration keeps k6's unbounded sink (%T)", bm.IterationDuration.Sink)
	}
	reg = metrics.NewRegistry()
	bm = metrics.RegisterBuiltinMetrics(reg)
	boundIterationDuration(reg, &scenario.Scenario{Thresholds: []scenario.Threshold{{Metric: "iteration_duration"}}})
	if _, ok := bm.IterationDuration.Sink.(*metrics.TrendSink); !ok {
		t.Errorf("a judged iteration_duration lost k6's sink (%T)", bm.IterationDuration.Sink)
	}
}
