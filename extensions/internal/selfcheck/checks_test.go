package selfcheck

import (
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

// The hypervisor's steal is told only when there was some, with its worst second.
func TestStealIsToldWhenThereWasSome(t *testing.T) {
	zero, some := 0.0, 1.5
	for _, tc := range []struct {
		cell results.Cell
		want string
	}{
		{results.Cell{}, ""},
		{results.Cell{HostStealPct: &zero}, ""},
		{results.Cell{HostStealPct: &some, HostSteal: []results.StealSecond{{Pct: 0.5}, {Pct: 9.25}, {Pct: 1}}},
			"; the hypervisor took 1.50 % of the CPU time during the cell, 9.25 % in its worst second"},
	} {
		if got := steal(tc.cell); got != tc.want {
			t.Errorf("steal = %q, want %q", got, tc.want)
		}
	}
}
