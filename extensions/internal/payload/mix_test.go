package payload

import "testing"

// A mix's messages follow its shares exactly over each cycle and within one message of them
// over any prefix of it; each body has its class's size.
func TestMixShares(t *testing.T) {
	sizes, weights := []int{256, 4096, 65536}, []int{7000, 2500, 500}
	m, err := NewMix(Spec{Content: "random"}, sizes, weights)
	if err != nil {
		t.Fatal(err)
	}
	count := map[int]int{}
	for n := 1; n <= 20000; n++ {
		count[len(m.Next())]++
		for i, s := range sizes {
			if want := float64(n) * float64(weights[i]) / 10000; float64(count[s]) < want-1 || float64(count[s]) > want+1 {
				t.Fatalf("after %d messages: %d of %d bytes, want %.1f ± 1", n, count[s], s, want)
			}
		}
	}
	if count[256] != 14000 || count[4096] != 5000 || count[65536] != 1000 {
		t.Errorf("two cycles: %v, want 14,000 / 5,000 / 1,000", count)
	}
}
