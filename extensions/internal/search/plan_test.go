package search

import (
	"slices"
	"testing"
)

// The rates a search tries, given which rates the broker holds (every rate up to holds).
func TestPlanner(t *testing.T) {
	tests := []struct {
		name       string
		start, max int
		precision  float64
		holds      func(rate int) bool
		tried      []int
		found      int
	}{
		{"every rate holds: doubling to the bound", 2000, 64000, 0.25, upTo(1 << 30),
			[]int{2000, 4000, 8000, 16000, 32000, 64000}, 64000},
		{"the bound is not a power of two of the start: capped", 5000, 30000, 0.05, upTo(1 << 30),
			[]int{5000, 10000, 20000, 30000}, 30000},
		{"bisect to 25%", 2000, 64000, 0.25, upTo(21000),
			[]int{2000, 4000, 8000, 16000, 32000, 24000, 20000}, 20000},
		{"bisect to 5%", 1000, 100000, 0.05, upTo(5500),
			[]int{1000, 2000, 4000, 8000, 6000, 5000, 5500, 5750}, 5500},
		{"the start fails: halve, then bisect", 8000, 100000, 0.25, upTo(1500),
			[]int{8000, 4000, 2000, 1000, 1500, 1750}, 1500},
		{"nothing holds down to 1/16 of the start", 8000, 100000, 0.05, upTo(100),
			[]int{8000, 4000, 2000, 1000, 500}, 0},
		{"the start is the bound and holds", 5000, 5000, 0.05, upTo(1 << 30), []int{5000}, 5000},
		{"tiny rates stop at a one-message gap", 2, 100, 0.01, upTo(2), []int{2, 4, 3}, 2},
		{"noise: a pass above a failure does not count", 1000, 100000, 0.25, func(r int) bool { return r != 2000 && r <= 6000 },
			[]int{1000, 2000, 1500, 1750}, 1750},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Planner{Start: tc.start, Max: tc.max, Precision: tc.precision}
			var tried []int
			for r := p.Next(); r != 0; r = p.Next() {
				if len(tried) > 50 {
					t.Fatalf("no end: %v", tried)
				}
				tried = append(tried, r)
				p.Record(r, tc.holds(r))
			}
			if !slices.Equal(tried, tc.tried) || p.Found() != tc.found {
				t.Errorf("tried %v, found %d; want %v, %d", tried, p.Found(), tc.tried, tc.found)
			}
		})
	}
}

func upTo(limit int) func(int) bool { return func(r int) bool { return r <= limit } }

// A confirming run that fails demotes the rate found: the search goes on below it.
func TestPlannerConfirmFails(t *testing.T) {
	p := Planner{Start: 2000, Max: 64000, Precision: 0.25}
	var tried []int
	for _, ok := range []bool{true, true, false, true, true} { // 2000 4000 8000 6000 7000
		r := p.Next()
		tried = append(tried, r)
		p.Record(r, ok)
	}
	if p.Next() != 0 || p.Found() != 7000 {
		t.Fatalf("tried %v: next %d, found %d; want the search over at 7000", tried, p.Next(), p.Found())
	}
	p.Record(7000, false) // its confirming run failed
	if p.Found() != 6000 || p.FirstFail() != 7000 || p.Next() != 0 {
		t.Errorf("after the confirm failed: found %d, first fail %d, next %d; want 6000, 7000, 0 (within 25%%)", p.Found(), p.FirstFail(), p.Next())
	}
	p = Planner{Start: 2000, Max: 64000, Precision: 0.05}
	p.Record(2000, true)
	p.Record(2000, false) // the start held its step, not its confirming run
	if p.Found() != 0 || p.Next() != 1000 {
		t.Errorf("start's confirm failed: found %d, next %d; want 0, 1000", p.Found(), p.Next())
	}
}
