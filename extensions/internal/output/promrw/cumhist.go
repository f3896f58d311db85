package promrw

import (
	"maps"
	"math"
	"slices"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// zeroThreshold is the zero bucket's width: 0 ns values only (a latency is at least 1 ns).
const zeroThreshold = 1e-10

// cumHist is a native histogram accumulated since the run started: Prometheus histograms are
// cumulative, like counters, so rate() and increase() give any window's distribution.
type cumHist struct {
	schema  int32
	zero    uint64
	count   uint64
	sum     float64
	buckets map[int32]uint64
}

func newCumHist(schema int32) *cumHist { return &cumHist{schema: schema, buckets: map[int32]uint64{}} }

// addInterval adds an interval's buckets (same schema: the runner counts in the output's).
func (h *cumHist) addInterval(n *hist.Native, sum float64) {
	h.zero += n.Zero
	h.count += n.Zero
	for _, b := range n.Buckets {
		h.buckets[b.Index] += b.Count
		h.count += b.Count
	}
	h.sum += sum
}

// observe adds one value (k6's own trends, sample by sample).
func (h *cumHist) observe(v float64) {
	h.count++
	h.sum += v
	if v <= zeroThreshold || math.IsNaN(v) {
		h.zero++
		return
	}
	h.buckets[hist.NativeIndex(h.schema, v)]++
}

// indices are the non-empty buckets' indices, ascending.
func (h *cumHist) indices() []int32 { return slices.Sorted(maps.Keys(h.buckets)) }

// native is the histogram in remote write's form: spans of consecutive buckets and each
// bucket's count as a delta from the previous one.
func (h *cumHist) native(ts int64) *prompb.Histogram {
	p := &prompb.Histogram{
		Count: &prompb.Histogram_CountInt{CountInt: h.count}, Sum: h.sum, Schema: h.schema,
		ZeroThreshold: zeroThreshold, ZeroCount: &prompb.Histogram_ZeroCountInt{ZeroCountInt: h.zero}, Timestamp: ts,
	}
	var prevIdx int32
	var prevCount int64
	for k, i := range h.indices() {
		switch {
		case k == 0:
			p.PositiveSpans = append(p.PositiveSpans, &prompb.BucketSpan{Offset: i, Length: 1})
		case i == prevIdx+1:
			p.PositiveSpans[len(p.PositiveSpans)-1].Length++
		default:
			p.PositiveSpans = append(p.PositiveSpans, &prompb.BucketSpan{Offset: i - prevIdx - 1, Length: 1})
		}
		c := int64(h.buckets[i])
		p.PositiveDeltas = append(p.PositiveDeltas, c-prevCount)
		prevIdx, prevCount = i, c
	}
	return p
}

// Classic buckets: the native buckets of schema 2 (bounds 2^(k/4), growth 19 %) from 10 µs to
// 60 s, the same list for every series and second, as classic histograms need.
const classicSchema = 2

var classicBounds = func() []int32 {
	var out []int32
	for i := hist.NativeIndex(classicSchema, 10e-6); i <= hist.NativeIndex(classicSchema, 60); i++ {
		out = append(out, i)
	}
	return out
}()

// classic is the cumulative count at each of classicBounds' upper bounds, then +Inf
// (values below the first bound count in it, the zero bucket in all of them).
func (h *cumHist) classic() (les []float64, counts []uint64) {
	idx := h.indices()
	cum, k := h.zero, 0
	for _, b := range classicBounds {
		for k < len(idx) && idx[k] <= b {
			cum += h.buckets[idx[k]]
			k++
		}
		les = append(les, hist.NativeUpper(classicSchema, b))
		counts = append(counts, cum)
	}
	return append(les, math.Inf(1)), append(counts, h.count)
}
