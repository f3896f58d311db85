package hist

import (
	"reflect"
	"slices"
	"strings"
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

// The standard deviation beside the mean: known distributions, within the histogram's 3
// significant digits, and the same after a merge and after an encode/decode round trip (the
// distributed merge and the .hdr files), since it is computed from the buckets.
func TestStdDev(t *testing.T) {
	uniform := make([]int64, 0, 1000)
	for i := int64(1); i <= 1000; i++ {
		uniform = append(uniform, i*1000) // 1 µs … 1 ms
	}
	for _, tc := range []struct {
		name   string
		values []int64 // ns
		want   float64 // µs, population standard deviation
	}{
		{"one value", []int64{5000}, 0},
		{"constant", []int64{7000, 7000, 7000, 7000}, 0},
		{"two values", []int64{1_000_000, 3_000_000}, 1000},
		{"uniform 1us to 1ms", uniform, 288.675},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := New()
			for _, v := range tc.values {
				h.Record(v)
			}
			got := h.Snapshot().StdDev
			if diff := got - tc.want; diff > tc.want*0.002+0.001 || diff < -(tc.want*0.002+0.001) {
				t.Errorf("stddev %.3f µs, want %.3f", got, tc.want)
			}
			// Split in two and merged: the same figure.
			a, b := New(), New()
			for i, v := range tc.values {
				if i%2 == 0 {
					a.Record(v)
				} else {
					b.Record(v)
				}
			}
			a.Merge(b)
			if m := a.Snapshot().StdDev; m != got {
				t.Errorf("merged stddev %.3f, one histogram's %.3f", m, got)
			}
			enc, err := h.EncodeV2()
			if err != nil {
				t.Fatal(err)
			}
			d, err := DecodeV2(enc)
			if err != nil {
				t.Fatal(err)
			}
			if r := d.Snapshot().StdDev; r != got {
				t.Errorf("decoded stddev %.3f, recorded %.3f", r, got)
			}
		})
	}
	if (New().Snapshot()).StdDev != 0 {
		t.Error("empty histogram: stddev not 0")
	}
}

// StatFields documents every key of Stats in summary.json, in the struct's order: a field
// added without its line fails here (docs/metrics.md is generated from the list).
func TestStatFieldsDocumentStats(t *testing.T) {
	var keys []string
	st := reflect.TypeOf(Stats{})
	for i := 0; i < st.NumField(); i++ {
		keys = append(keys, strings.Split(st.Field(i).Tag.Get("json"), ",")[0])
	}
	var doc []string
	for _, f := range StatFields {
		doc = append(doc, f.Key)
	}
	if !slices.Equal(keys, doc) {
		t.Errorf("summary.json's stat keys %v, documented %v", keys, doc)
	}
}
