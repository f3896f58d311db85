package jsmodule

import (
	"math"
	"sync"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/plan"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"go.k6.io/k6/v2/metrics"
)

// k6 keeps every value of a trend in its sink (a float64 per sample, sorted at the end). For
// mqbench's own metrics no per-message sample reaches k6 any more, but k6 still records one
// iteration_duration per producer iteration: at 2,000 iterations a second that is ~17 MB an
// hour of a run's memory, which grows with the run's length. mqbench does not use that metric,
// so unless a scenario puts a threshold on it, its sink is replaced by a bounded one: an
// HdrHistogram (count, min, max and mean exact, percentiles to 3 significant digits) that
// still answers k6's summary.

// boundedTrend is a metrics.Sink of fixed size for a time trend (values in ms).
type boundedTrend struct {
	mu                  sync.Mutex
	h                   *hist.Hist
	count               uint64
	min, max, sumMillis float64
}

var _ metrics.Sink = (*boundedTrend)(nil)

func newBoundedTrend() *boundedTrend { return &boundedTrend{h: hist.New()} }

// Add records one sample (ms).
func (b *boundedTrend) Add(s metrics.Sample) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v := s.Value
	if b.count == 0 || v < b.min {
		b.min = v
	}
	if b.count == 0 || v > b.max {
		b.max = v
	}
	b.count++
	b.sumMillis += v
	b.h.Record(int64(math.Round(v * 1e6)))
}

// IsEmpty reports whether nothing was recorded.
func (b *boundedTrend) IsEmpty() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.count == 0
}

// Format gives k6's trend statistics (ms).
func (b *boundedTrend) Format(time.Duration) map[string]float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]float64{"min": b.min, "max": b.max, "avg": 0, "med": 0, "p(90)": 0, "p(95)": 0, "count": float64(b.count)}
	if b.count == 0 {
		return out
	}
	v := b.h.View()
	out["avg"] = b.sumMillis / float64(b.count)
	out["med"], out["p(90)"], out["p(95)"] = v.Quantile(50)/1e6, v.Quantile(90)/1e6, v.Quantile(95)/1e6
	return out
}

// boundIterationDuration swaps iteration_duration's sink unless the scenario judges it.
func boundIterationDuration(reg *metrics.Registry, sc *scenario.Scenario) {
	for _, t := range plan.AllThresholds(sc) {
		if plan.MetricName(t.Metric) == metrics.IterationDurationName {
			return // k6 judges it, on its own sink
		}
	}
	if m := reg.Get(metrics.IterationDurationName); m != nil {
		m.Sink = newBoundedTrend()
	}
}
