package hist

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

// Every percentile is the value of rank ⌈q·N/100⌉ (to the histogram's 3 digits), whatever N:
// HdrHistogram's rounded rank took the value below whenever q·N/100 had a fraction under .5.
func TestValueAtIsTheNearestRank(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, tc := range []struct {
		name string
		n    int
	}{
		{"whole rank (1,600 values: p99 is the 1,584th)", 1600},
		{"rank with a fraction under .5 (1,297: p99 is the 1,285th, not the 1,284th)", 1297},
		{"rank with a fraction over .5 (1,799)", 1799},
		{"one value", 1},
		{"fewer values than p99.99 needs", 37},
		{"whole rank in decimal, not in binary (10 values, p70)", 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vals := make([]int64, tc.n)
			h := New()
			for i := range vals {
				// Sparse tail: neighbouring ranks lie buckets apart, so an off-by-one shows.
				vals[i] = int64(1000 * math.Exp(rng.Float64()*12))
				h.Record(vals[i])
			}
			slices.Sort(vals)
			snap := h.Snapshot()
			for _, p := range append([]Percentile{{Q: 70}}, Percentiles...) {
				q := p.Q
				rank := int(math.Ceil(q*float64(tc.n)/100 - 1e-9))
				want := vals[max(rank, 1)-1]
				got := ValueAt(h.h, q)
				if !h.h.ValuesAreEquivalent(got, want) {
					t.Errorf("p%g of %d values = %d, want the %d-th value %d (its bucket)", q, tc.n, got, rank, want)
				}
				if v, ok := snap.P[p.Key]; ok && !h.h.ValuesAreEquivalent(int64(math.Round(v*1e3)), want) {
					t.Errorf("summary's %s = %v us, want the %d-th value %d ns", p.Key, v, rank, want)
				}
			}
		})
	}
}
