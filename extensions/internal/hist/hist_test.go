package hist

import (
	"slices"
	"testing"
)

func TestPercentileSpellingsAndResolution(t *testing.T) {
	for _, tc := range []struct {
		p         Percentile
		label, k6 string
		needs     int64
		count     int64
		resolved  bool
	}{
		{Percentiles[0], "p50", "p(50)", 2, 1, false},
		{Percentiles[3], "p99", "p(99)", 100, 100, true},
		{Percentiles[4], "p99.9", "p(99.9)", 1000, 999, false},
		{Percentiles[5], "p99.99", "p(99.99)", 10000, 10000, true},
		{Percentiles[7], "p99.9999", "p(99.9999)", 1000000, 1001, false},
	} {
		if tc.p.Label() != tc.label || tc.p.K6() != tc.k6 || tc.p.Needs() != tc.needs {
			t.Errorf("%s: label %q k6 %q needs %d", tc.p.Key, tc.p.Label(), tc.p.K6(), tc.p.Needs())
		}
		if got := (Stats{Count: tc.count}).Resolved(tc.p.Key); got != tc.resolved {
			t.Errorf("%s with %d samples: resolved %v", tc.p.Key, tc.count, got)
		}
	}
	h := New()
	for i := 0; i < 1001; i++ {
		h.Record(int64(i) * 1000)
	}
	if got := h.Snapshot().Unresolved; !slices.Equal(got, []string{"p99_99", "p99_999", "p99_9999"}) {
		t.Errorf("1,001 samples: unresolved %v", got)
	}
}
