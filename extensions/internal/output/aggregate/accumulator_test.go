package aggregate

import "testing"

func TestPercentileNearestRank(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for p, want := range map[float64]float64{50: 5, 90: 9, 99: 10, 99.99: 10, 1: 1, 0: 1} {
		if got := percentile(v, p); got != want {
			t.Errorf("p%v = %v, want %v (InfluxQL nearest rank)", p, got, want)
		}
	}
}
