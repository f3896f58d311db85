package hist

import (
	"math"
	"sort"
)

// Prometheus's native histograms use exponential buckets: at schema s, bucket i holds the
// values in (2^((i-1)/2^s), 2^(i/2^s)]. A Hist can count its interval's values in them beside
// the HdrHistogram (EnableNative), so a Prometheus output gets each second's exact bucket
// counts, which PromQL then sums correctly over seconds, cells and runners.

// MaxNativeSchema is the finest schema Prometheus accepts (bucket growth 2^(1/256)).
const MaxNativeSchema = 8

// NativeBucket is one non-empty bucket.
type NativeBucket struct {
	Index int32
	Count uint64
}

// Native is an interval's values (seconds) in native buckets, ascending by index; Zero counts
// the values of 0 ns.
type Native struct {
	Schema  int32
	Zero    uint64
	Buckets []NativeBucket
}

// NativeIndex is the bucket of v (> 0) at schema 0..MaxNativeSchema, as Prometheus computes
// it (math.Frexp and the schema's bounds, so exact powers of two land where Prometheus puts them).
func NativeIndex(schema int32, v float64) int32 {
	frac, exp := math.Frexp(v)
	if schema == 0 {
		if frac == 0.5 {
			exp--
		}
		return int32(exp)
	}
	b := nativeBounds[schema]
	return int32(sort.SearchFloat64s(b, frac) + (exp-1)*len(b))
}

// NativeUpper is the upper bound of bucket i at schema s.
func NativeUpper(schema, i int32) float64 {
	return math.Exp2(float64(i) / float64(int64(1)<<schema))
}

// nativeBounds[s] are the fractions 2^(j/2^s - 1), j = 0 … 2^s-1, that split [0.5, 1).
var nativeBounds = func() [][]float64 {
	out := make([][]float64, MaxNativeSchema+1)
	for s := 1; s <= MaxNativeSchema; s++ {
		n := 1 << s
		out[s] = make([]float64, n)
		for j := range n {
			out[s][j] = math.Exp2(float64(j)/float64(n) - 1)
		}
	}
	return out
}()

// nativeCounts counts values of 1 ns … 1 h in one flat array: a slice index per record, no map.
type nativeCounts struct {
	schema int32
	lo     int32 // index of counts[0]
	counts []uint64
	zero   uint64
	used   bool
}

func newNativeCounts(schema int32) *nativeCounts {
	lo := NativeIndex(schema, 1e-9)
	hi := NativeIndex(schema, float64(highestNs)/1e9)
	return &nativeCounts{schema: schema, lo: lo, counts: make([]uint64, hi-lo+1)}
}

func (n *nativeCounts) add(ns int64) {
	n.used = true
	if ns <= 0 {
		n.zero++
		return
	}
	n.counts[NativeIndex(n.schema, float64(ns)/1e9)-n.lo]++
}

// take returns the counts since the last take and clears them.
func (n *nativeCounts) take() *Native {
	out := &Native{Schema: n.schema, Zero: n.zero}
	n.zero = 0
	if !n.used {
		return out
	}
	for i, c := range n.counts {
		if c > 0 {
			out.Buckets = append(out.Buckets, NativeBucket{Index: n.lo + int32(i), Count: c})
			n.counts[i] = 0
		}
	}
	n.used = false
	return out
}

// EnableNative starts counting the interval's values in native buckets at schema (clamped to
// 0 … MaxNativeSchema); TakeInterval returns them. Intervals must be enabled too.
func (h *Hist) EnableNative(schema int32) {
	schema = max(0, min(schema, MaxNativeSchema))
	h.mu.Lock()
	if h.nat == nil || h.nat.schema != schema {
		h.nat = newNativeCounts(schema)
	}
	h.mu.Unlock()
}
