package runner

import (
	"sync"
	"testing"
	"time"
)

// A window fed from several goroutines at once ends with the smallest and the largest
// time added, whatever the order, and a rate over that span.
func TestWindowBoundsUnderConcurrency(t *testing.T) {
	var w window
	if _, _, ok := w.bounds(); ok || w.rate(5, time.Second) != 0 {
		t.Fatal("an empty window has bounds or a rate")
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10000 {
				w.add(int64(1000 + (i*8+g)*7919%80000)) // 1,000 … 80,999 in a scattered order
			}
		}()
	}
	wg.Wait()
	first, last, ok := w.bounds()
	if !ok || first != 1000 || last != 80999 {
		t.Fatalf("bounds %d … %d (%v), want 1000 … 80999", first, last, ok)
	}
	if r := w.rate(80000, 0); r < 0.99e9 || r > 1.01e9 {
		t.Fatalf("rate %.0f/s over 80 us for 80,000 events, want 1e9/s", r)
	}
}
