package jsmodule

import (
	"math"
	"sync"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/plan"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"go.k6.io/k6/v2/metrics"
)

// k6 keeps every value of a trend in its sink (a float64 per sample, sorted at the end), so a
// trend's memory grows with the run's length: one iteration_duration per producer iteration
// (at 2,000 iterations a second ~17 MB an hour), and for mqbench's own trends a sample per
// statistic each second, a mix no k6 statistic makes sense of. mqbench judges its trends on
// its own histograms and writes its own summary, so those sinks are replaced by bounded ones
// (an HdrHistogram: count, min, max and mean exact, percentiles to 3 significant digits):
// iteration_duration's unless a scenario puts a threshold on it (k6 judges it on its sink),
// mqbench's trends' unless samples are raw (one per message, which k6's sink then keeps
// whole, as --summary-export of a raw run expects).

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

// boundTrends swaps iteration_duration's sink unless the scenario judges it, and those of
// mqbench's trends unless their samples are raw.
func boundTrends(reg *metrics.Registry, sc *scenario.Scenario, raw bool) {
	names := []string{metrics.IterationDurationName}
	for _, t := range plan.AllThresholds(sc) {
		if plan.MetricName(t.Metric) == metrics.IterationDurationName {
			names = nil
		}
	}
	for _, m := range catalog.Metrics {
		if m.Kind == catalog.Trend && !raw {
			names = append(names, m.Name) // per-second statistics, judged by mqbench
		}
	}
	for _, name := range names {
		if m := reg.Get(name); m != nil {
			m.Sink = newBoundedTrend()
		}
	}
}
