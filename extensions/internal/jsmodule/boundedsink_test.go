package jsmodule

import (
	"math"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"go.k6.io/k6/v2/metrics"
)

// The bounded sink answers k6's trend statistics like k6's own sink (count, min, max, avg
// exactly; percentiles within the histogram's 0.1%), and replaces mqbench's trends' sinks
// unless samples are raw, and iteration_duration's unless the scenario judges that metric.
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
	mm, err := registerMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	boundTrends(reg, &scenario.Scenario{}, false)
	for _, m := range []*metrics.Metric{bm.IterationDuration, mm.e2eLatency, mm.e2eIntended, mm.publishLatency, mm.scheduleLag} {
		if _, ok := m.Sink.(*boundedTrend); !ok {
			t.Errorf("%s keeps k6's unbounded sink (%T)", m.Name, m.Sink)
		}
	}
	reg = metrics.NewRegistry()
	bm = metrics.RegisterBuiltinMetrics(reg)
	mm, err = registerMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	boundTrends(reg, &scenario.Scenario{Thresholds: []scenario.Threshold{{Metric: "iteration_duration"}}}, true)
	for _, m := range []*metrics.Metric{bm.IterationDuration, mm.e2eLatency, mm.scheduleLag} {
		if _, ok := m.Sink.(*metrics.TrendSink); !ok {
			t.Errorf("judged or raw, %s lost k6's sink (%T)", m.Name, m.Sink)
		}
	}
}
