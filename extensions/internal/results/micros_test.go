package results

import (
	"math"
	"testing"
)

func TestMicros(t *testing.T) {
	for in, want := range map[float64]string{0.125: "0.13us", 8.254: "8.25us", 85.25: "85.3us", 812: "812.0us", 1240: "1.24ms", 2.1e6: "2.10s", math.NaN(): "-"} {
		if got := Micros(in); got != want {
			t.Errorf("Micros(%v) = %q, want %q", in, got, want)
		}
	}
}
