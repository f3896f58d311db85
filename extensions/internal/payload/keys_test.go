package payload

import (
	"math"
	"strconv"
	"testing"
)

// Each distribution's keys follow its theory: over 200,000 draws every key's share of the
// first ten is within 0.5 points of Share, and the shares add up to 1.
func TestKeysFollowTheirDistribution(t *testing.T) {
	for _, c := range []struct {
		kind          string
		n             int
		s, share, hot float64
	}{{"zipf", 1000, 1.1, 0, 0}, {"zipf", 50, 0.5, 0, 0}, {"hot", 1000, 0, 0.8, 0.01}, {"uniform", 20, 0, 0, 0}, {"round-robin", 7, 0, 0, 0}} {
		k, err := NewKeys(c.kind, c.n, c.s, c.share, c.hot)
		if err != nil {
			t.Fatal(err)
		}
		const draws = 200000
		got := map[string]int{}
		for seq := range uint64(draws) {
			got[string(k.Next(seq))]++
		}
		sum := 0.0
		for i := range c.n {
			sum += k.Share(i)
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("%s: shares add up to %v", c.kind, sum)
		}
		for i := range min(c.n, 10) {
			share := float64(got["k"+strconv.Itoa(i)]) / draws
			if math.Abs(share-k.Share(i)) > 0.005 {
				t.Errorf("%s: k%d drawn %.4f of the time, theory %.4f", c.kind, i, share, k.Share(i))
			}
		}
	}
	if k, _ := NewKeys("none", 0, 0, 0, 0); k.Next(1) != nil {
		t.Error("none gives a key")
	}
	if k, _ := NewKeys("round-robin", 0, 0, 0, 0); string(k.Next(65)) != "k1" {
		t.Error("round-robin without keys is not 64 keys")
	}
}
