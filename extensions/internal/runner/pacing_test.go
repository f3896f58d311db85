package runner

import (
	"context"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/pacer"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// With pacing precise a fixed-rate cell's schedule is in the pacer from its first iteration
// until it is finalized, and never with pacing timer or in a closed-loop cell.
func TestPacingOnlyWhileTheCellSends(t *testing.T) {
	for _, c := range []struct {
		pacing string
		max    bool
		want   int
	}{
		{scenario.PacingPrecise, false, 1},
		{scenario.PacingTimer, false, 0},
		{scenario.PacingPrecise, true, 0},
	} {
		cell := scenario.Cell{ID: "c1", Size: 64, SizeLabel: "64B", Rate: 1000, Batch: 1, Producers: 1, Consumers: 1, Duration: time.Minute, Max: c.max, Inflight: 10}
		sc := embeddedScenario(cell)
		sc.Workload.Pacing = c.pacing
		r := connected(t, sc)
		if n := pacer.Default.Schedules(); n != 0 {
			t.Fatalf("%s: %d schedules before the cell sent", c.pacing, n)
		}
		r.Publish(context.Background(), 0, time.Now(), 0)
		if n := pacer.Default.Schedules(); n != c.want {
			t.Errorf("pacing %s, max %v: %d schedules while the cell sends, want %d", c.pacing, c.max, n, c.want)
		}
		r.finalize(0, false)
		if n := pacer.Default.Schedules(); n != 0 {
			t.Errorf("pacing %s, max %v: %d schedules after the cell ended", c.pacing, c.max, n)
		}
	}
}
