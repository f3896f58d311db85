package hist

import (
	"math"
	"testing"
)

// Each value lands in the bucket whose bounds hold it, (upper(i-1), upper(i)], at every schema,
// exact powers of two included (they are a bucket's upper bound, as in Prometheus).
func TestNativeIndexBounds(t *testing.T) {
	values := []float64{1e-9, 3.3e-7, 1e-6, 0.000125, 0.5, 1, 1.0000001, 2, 3, 1023.9, 3600}
	for s := int32(0); s <= MaxNativeSchema; s++ {
		for _, v := range values {
			i := NativeIndex(s, v)
			lo, hi := NativeUpper(s, i-1), NativeUpper(s, i)
			if !(v > lo*(1-1e-12) && v <= hi*(1+1e-12)) {
				t.Errorf("schema %d: %g in bucket %d = (%g, %g]", s, v, i, lo, hi)
			}
		}
	}
	for s := int32(0); s <= MaxNativeSchema; s++ {
		if got := NativeIndex(s, 1); got != 0 {
			t.Errorf("schema %d: 1 s in bucket %d, want 0 (1 is bucket 0's upper bound)", s, got)
		}
	}
}

// The interval's native buckets count exactly what was recorded, zero included, and a take
// clears them.
func TestNativeInterval(t *testing.T) {
	h := New()
	h.EnableIntervals()
	h.EnableNative(5)
	vals := []int64{0, 1_000, 1_000, 250_000, 250_001, 3_000_000, 3600e9 + 5}
	for _, v := range vals {
		h.Record(v)
	}
	in := h.TakeInterval(false)
	if in.Native == nil || in.Native.Schema != 5 {
		t.Fatalf("native = %+v", in.Native)
	}
	var total uint64
	prev := int32(math.MinInt32)
	for _, b := range in.Native.Buckets {
		if b.Index <= prev {
			t.Errorf("buckets not ascending: %v", in.Native.Buckets)
		}
		prev = b.Index
		total += b.Count
	}
	if in.Native.Zero != 1 || total+in.Native.Zero != uint64(len(vals)) {
		t.Errorf("zero %d, buckets %d; want 1 and %d", in.Native.Zero, total, len(vals)-1)
	}
	if want := NativeIndex(5, 1e-6); in.Native.Buckets[0] != (NativeBucket{Index: want, Count: 2}) {
		t.Errorf("first bucket %+v, want index %d count 2", in.Native.Buckets[0], want)
	}
	if next := h.TakeInterval(false); next.Native == nil || len(next.Native.Buckets) != 0 || next.Native.Zero != 0 {
		t.Errorf("after a take: %+v", next.Native)
	}
	h.DisableIntervals()
	if in := h.TakeInterval(false); in.Native != nil {
		t.Errorf("disabled, still native: %+v", in.Native)
	}
}
