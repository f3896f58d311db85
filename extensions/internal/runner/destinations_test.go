package runner

import (
	"testing"
)

// Consumer j of every subscription reads destination j mod n: its deliveries count there, and
// the shares add up to 100.
func TestDestCounts(t *testing.T) {
	if newDestCounts(1) != nil || newDestCounts(0).report([]string{"a"}) != nil {
		t.Fatal("one destination has no per-destination counts")
	}
	d := newDestCounts(2)
	const consumers = 4 // lanes 0-3 subscription 0, 4-7 subscription 1
	for lane, n := range []int{5, 1, 2, 0, 3, 0, 0, 1} {
		for range n {
			d.add(lane, consumers)
		}
	}
	got := d.report([]string{"q-0", "q-1"})
	want := []struct {
		name  string
		n     uint64
		share float64
	}{{"q-0", 10, 10.0 / 12 * 100}, {"q-1", 2, 2.0 / 12 * 100}}
	for i, w := range want {
		if got[i].Destination != w.name || got[i].Received != w.n || got[i].SharePct-w.share > 1e-9 || w.share-got[i].SharePct > 1e-9 {
			t.Errorf("destination %d: %+v, want %s %d %.2f%%", i, got[i], w.name, w.n, w.share)
		}
	}
}
