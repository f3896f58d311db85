package runner

import (
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/plan"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// Each cell paces and stamps intended times on the plan's schedule, the one k6's options
// carry: a plain run's, and a shared destination's producing runner's, whose rate share the
// plan scaled once (joining the shared run leaves it alone).
func TestCellsSendOnThePlansSchedule(t *testing.T) {
	for _, c := range []struct {
		name               string
		runners, consumers int
		shared             bool
		want1000, want7of3 time.Duration // rate 1000 batch 1; rate 7 batch 3
	}{
		{"plain", 0, 0, false, time.Millisecond, 428571428},
		{"shared, 3 runners, 1 consuming", 3, 1, true, 666666, 285714285},
		{"shared, 4 runners, 3 consuming", 4, 3, true, 250000, 107142857},
	} {
		sc := embeddedScenario(
			scenario.Cell{ID: "c1", Size: 64, SizeLabel: "64B", Rate: 1000, Batch: 1, Producers: 1, Consumers: 1, Duration: time.Second},
			scenario.Cell{ID: "c2", Size: 64, SizeLabel: "64B", Rate: 7, Batch: 3, Producers: 1, Consumers: 1, Duration: time.Second},
			scenario.Cell{ID: "c3", Size: 64, SizeLabel: "64B", Max: true, Producers: 1, Consumers: 1, Duration: time.Second},
		)
		sc.Distributed = scenario.Distributed{Shared: c.shared, Consumers: c.consumers}
		p := plan.Build(sc, "test", c.runners)
		var opts []Option
		if c.shared {
			opts = append(opts, WithShared(SharedConfig{RunID: 1, Runner: 1, Runners: c.runners, Produces: true}))
		}
		r, err := New(p, opts...)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []time.Duration{c.want1000, c.want7of3, 0} {
			if got := r.cells[i].sched.Period; got != want || got != p.Schedule(i).Period {
				t.Errorf("%s, cell %d: period %d ns, want %d (the plan's %d)", c.name, i, got, want, p.Schedule(i).Period)
			}
		}
	}
}
