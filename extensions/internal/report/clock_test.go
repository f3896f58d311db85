package report

import (
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

// A shared run's clock shows in summary.txt and report.html: each runner's offset and
// uncertainty, a test-only shift named as such, and each cell's bound or why there is none.
func TestClockSection(t *testing.T) {
	s := &results.Summary{Clock: &results.RunClock{
		Runners: []results.RunnerClock{{Runner: 1, Role: "produce", Reference: "10.0.0.5:7421", OffsetMs: 2000.001, UncertaintyMs: 0.042, MaxDriftMs: 0.003, TestOnlySkewMs: 2000},
			{Runner: 2, Role: "consume", OffsetMs: 0, UncertaintyMs: 0}},
		Cells: []results.CellBound{{ID: "c1", BoundMs: 0.125, Measured: true}, {ID: "c2", Measured: false}},
	}}
	for name, out := range map[string]string{"text": strings.Join(clockText(s), "\n"), "html": clockHTML(s)} {
		for _, want := range []string{"2000.001 ms", "0.042 ms", "test-only clock shift 2000.000 ms", "not measured", "c1", "0.125 ms", "not bounded"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", name, want, out)
			}
		}
	}
	if clockText(&results.Summary{}) != nil || clockHTML(&results.Summary{}) != "" {
		t.Error("a clock section without a shared destination")
	}
}
