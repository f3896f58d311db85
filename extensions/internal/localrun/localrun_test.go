package localrun

import "testing"

// The operator's split: runner i of n runs (i-1)/n:i/n of the sequence 0,1/n,…,1.
func TestSegmentsAreTheOperators(t *testing.T) {
	for _, c := range []struct {
		n        int
		segments []string
		sequence string
	}{
		{1, []string{"0:1"}, "0,1"},
		{2, []string{"0:1/2", "1/2:1"}, "0,1/2,1"},
		{3, []string{"0:1/3", "1/3:2/3", "2/3:1"}, "0,1/3,2/3,1"},
	} {
		for i, want := range c.segments {
			if got := Segment(i+1, c.n); got != want {
				t.Errorf("runner %d of %d: segment %q, want %q", i+1, c.n, got, want)
			}
		}
		if got := Sequence(c.n); got != c.sequence {
			t.Errorf("%d runners: sequence %q, want %q", c.n, got, c.sequence)
		}
	}
}
