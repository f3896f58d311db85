package hist

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// ValueAt is the value at q percent (0 < q ≤ 100) of h by the nearest-rank definition: the
// value of rank ⌈q·N/100⌉, the smallest recorded value with at least q % of all values at or
// below it (the top of its bucket). Prometheus's histogram_quantile ranks the same way, so a
// run's p99 and the p99 of its series in Prometheus name the same value. HdrHistogram's own
// ValueAtQuantile rounds the rank to the nearest instead: with q·N/100 = 1284.03 it takes the
// 1,284th value, below which fewer than q % lie, a percentile a threshold would pass too early.
func ValueAt(h *hdr.Histogram, q float64) int64 {
	n := h.TotalCount()
	if n == 0 {
		return 0
	}
	x := q / 100 * float64(n)
	// A product meant to be whole can land just above it (0.7·10 = 7.000000000000001): that
	// is still rank 7, not 8.
	rank := min(max(int64(math.Ceil(x-x*1e-12)), 1), n)
	// The library rounds (p/100·N + 0.5) down to its rank: rank − 0.25 lands on rank exactly.
	return h.ValueAtQuantile((float64(rank) - 0.25) / float64(n) * 100)
}
