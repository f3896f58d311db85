package selfcheck

import (
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// k6's latest send is always told, the hypervisor's steal only when there was some, with its
// worst second.
func TestStarvedTellsLagAndSteal(t *testing.T) {
	zero, some := 0.0, 1.5
	for _, tc := range []struct {
		cell results.Cell
		want string
	}{
		{results.Cell{}, "; k6 ran its sends at most 0.0 ms late"},
		{results.Cell{HostStealPct: &zero, ScheduleLag: hist.Stats{Max: 212_400}}, "; k6 ran its sends at most 212.4 ms late"},
		{results.Cell{HostStealPct: &some, HostSteal: []results.StealSecond{{Pct: 0.5}, {Pct: 9.25}, {Pct: 1}}, ScheduleLag: hist.Stats{Max: 350}},
			"; k6 ran its sends at most 0.3 ms late, the hypervisor took 1.50 % of the CPU time during the cell, 9.25 % in its worst second"},
	} {
		if got := starved(tc.cell); got != tc.want {
			t.Errorf("starved = %q, want %q", got, tc.want)
		}
	}
}
