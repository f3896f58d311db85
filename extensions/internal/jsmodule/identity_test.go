package jsmodule

import (
	"strings"
	"testing"

	"go.k6.io/k6/v2/lib"
)

// Which runner a process is, from k6's own execution tuple.
func TestIdentity(t *testing.T) {
	tuple := func(seg, seq string) *lib.ExecutionState {
		var s lib.ExecutionSegment
		if err := s.UnmarshalText([]byte(seg)); err != nil {
			t.Fatal(err)
		}
		q, err := lib.NewExecutionSegmentSequenceFromString(seq)
		if err != nil {
			t.Fatal(err)
		}
		et, err := lib.NewExecutionTuple(&s, &q)
		if err != nil {
			t.Fatal(err)
		}
		return &lib.ExecutionState{ExecutionTuple: et}
	}
	for _, c := range []struct {
		seg, seq string
		n, want  int
		err      string
	}{
		{"0:1/3", "0,1/3,2/3,1", 3, 1, ""},
		{"2/3:1", "0,1/3,2/3,1", 3, 3, ""},
		{"1/2:1", "0,1/2,1", 3, 0, "has 2 segments"},
		{"0:1/4", "0,1/4,1", 2, 0, "must be equal"},
	} {
		i, _, _, err := identity(tuple(c.seg, c.seq), c.n)
		if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) || i != c.want {
			t.Errorf("%s of %s, N=%d: runner %d, %v; want %d, %q", c.seg, c.seq, c.n, i, err, c.want, c.err)
		}
	}
	if _, _, _, err := identity(nil, 2); err == nil {
		t.Error("no execution segment accepted")
	}
}
