package jsnum

import (
	"math"
	"testing"
)

func TestFormats(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{ToFixed(2.5, 0), "3"}, {ToFixed(-0.125, 2), "-0.13"}, {ToFixed(1.005, 2), "1.00"}, {ToFixed(0, 2), "0.00"}, {ToFixed(math.Copysign(0, -1), 1), "0.0"},
		{Num(math.NaN(), 1), "-"},
		{Fmt1(70), "70"}, {Fmt1(123.45), "123.5"}, {Fmt1(-0.04), "0"}, {String(1e-7), "1e-7"}, {String(0.25), "0.25"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	for e := -7; e <= 20; e++ {
		if got := Log10(math.Pow10(e)); got != float64(e) {
			t.Errorf("Log10(1e%d) = %v", e, got)
		}
	}
}
