package aggregate

import (
	"math"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"go.k6.io/k6/v2/metrics"
)

// aggStats are the statistics written for each trend window, in this order: the same stat
// tags as the per-second samples mqbench sends k6 (hist.IntervalStats), so dashboards read
// raw and aggregated runs alike.
var aggStats = func() []aggStat {
	var out []aggStat
	for _, tag := range hist.IntervalStats() {
		p := -1.0 // count, min, mean, max: handled by name
		if q, ok := strings.CutPrefix(tag, "p"); ok {
			p, _ = strconv.ParseFloat(q, 64)
		}
		out = append(out, aggStat{tag, p})
	}
	return out
}()

type aggStat struct {
	tag string
	p   float64 // percentile, or -1 for the non-percentile statistics handled by name
}

// acc accumulates one series over one window.
type acc struct {
	typ           metrics.MetricType
	n             int
	sum, min, max float64
	last          float64
	lastT         int64
	nonZero       int
	vals          []float64 // trends only
}

func (a *acc) add(s metrics.Sample) {
	v, t := s.Value, s.Time.UnixNano()
	if a.n == 0 || v < a.min {
		a.min = v
	}
	if a.n == 0 || v > a.max {
		a.max = v
	}
	if a.n == 0 || t >= a.lastT {
		a.last, a.lastT = v, t
	}
	a.n++
	a.sum += v
	if v != 0 {
		a.nonZero++
	}
	if a.typ == metrics.Trend {
		a.vals = append(a.vals, v)
	}
}

// stat is one of aggStats over a trend window; a.vals must be sorted.
func (a *acc) stat(tag string, p float64) float64 {
	switch {
	case p >= 0:
		return percentile(a.vals, p)
	case tag == "count":
		return float64(a.n)
	case tag == "min":
		return a.min
	case tag == "max":
		return a.max
	case tag == "mean":
		return a.sum / float64(a.n)
	}
	return 0
}

// percentile is InfluxQL's nearest rank on sorted values (clamped instead of null at the edges).
func percentile(sorted []float64, p float64) float64 {
	i := int(math.Floor(float64(len(sorted))*p/100+0.5)) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
