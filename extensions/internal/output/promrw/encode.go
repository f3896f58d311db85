package promrw

import (
	"math"
	"strconv"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
)

// encode is the series' remote write form at ts: its value since the run started (one series,
// or with classic buckets the _bucket, _sum and _count series), after a zero at its birth on
// its first push.
func (s *series) encode(ts int64, classic bool) []*prompb.TimeSeries {
	zeroAt := int64(-1)
	if !s.sent {
		zeroAt = min(s.born, ts) - 1
	}
	if s.kind != kindHist {
		v := s.value
		if s.kind == kindRate {
			v = s.num / max(s.den, 1)
		}
		var smp []*prompb.Sample
		if zeroAt >= 0 && s.kind == kindCounter {
			smp = append(smp, &prompb.Sample{Timestamp: zeroAt})
		}
		return []*prompb.TimeSeries{{Labels: s.labels, Samples: append(smp, &prompb.Sample{Value: v, Timestamp: ts})}}
	}
	if !classic {
		var hs []*prompb.Histogram
		if zeroAt >= 0 {
			hs = append(hs, newCumHist(s.h.schema).native(zeroAt))
		}
		return []*prompb.TimeSeries{{Labels: s.labels, Histograms: append(hs, s.h.native(ts))}}
	}
	base := metricOf(s.labels)
	counter := func(name string, labels []*prompb.Label, v float64) *prompb.TimeSeries {
		labels = withLabel(labels, "__name__", base+name)
		smp := []*prompb.Sample{{Value: v, Timestamp: ts}}
		if zeroAt >= 0 {
			smp = append([]*prompb.Sample{{Timestamp: zeroAt}}, smp...)
		}
		return &prompb.TimeSeries{Labels: labels, Samples: smp}
	}
	les, counts := s.h.classic()
	out := make([]*prompb.TimeSeries, 0, len(les)+2)
	for i, le := range les {
		out = append(out, counter("_bucket", withLabel(s.labels, "le", formatLe(le)), float64(counts[i])))
	}
	return append(out, counter("_sum", s.labels, s.h.sum), counter("_count", s.labels, float64(s.h.count)))
}

// idleLimit is how many pushes a gauge may go unchanged before it is marked stale: a cell's
// backlog or broker CPU would otherwise stay drawn at its last value for Prometheus's 5 min
// lookback after the cell ended. Counters and histograms keep their totals (queries take
// rate(), increase() or max_over_time() of them).
const idleLimit = 3

// staleNaN is Prometheus's staleness marker: the series ended here.
var staleNaN = math.Float64frombits(0x7ff0000000000002)

// staleMarker counts a push without change and returns the gauge's staleness marker on its
// idleLimit-th; nothing for other series, or before, or after. The caller holds mu.
func (s *series) staleMarker(now int64) []*prompb.TimeSeries {
	if s.kind != kindGauge && s.kind != kindRate || !s.sent {
		return nil
	}
	if s.idle++; s.idle != idleLimit {
		return nil
	}
	return []*prompb.TimeSeries{{Labels: s.labels, Samples: []*prompb.Sample{{Value: staleNaN, Timestamp: max(now, s.lastStamp+1)}}}}
}

// formatLe writes a bucket bound as Prometheus's client libraries do ("+Inf", shortest float).
func formatLe(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
