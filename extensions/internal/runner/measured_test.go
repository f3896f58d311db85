package runner

import (
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// A cell's measured time runs from the end of its warm-up to the end of its sends, cut short
// where the cell ended first; the drain is not in it.
func TestMeasuredTime(t *testing.T) {
	const warm, dur = 2 * time.Second, 10 * time.Second
	for _, c := range []struct {
		name    string
		now     time.Duration // since the cell started
		ended   time.Duration // when finalize ran, since the cell started; 0: not yet
		want    time.Duration
		started bool
	}{
		{"not started", 0, 0, 0, false},
		{"warming up", time.Second, 0, 0, true},
		{"measuring", 5 * time.Second, 0, 3 * time.Second, true},
		{"draining", 13 * time.Second, 0, dur, true},
		{"after the drain", time.Minute, 14 * time.Second, dur, true},
		{"stopped while measuring", time.Minute, 7 * time.Second, 5 * time.Second, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := embeddedScenario(scenario.Cell{ID: "c1", Size: 64, SizeLabel: "64B", Rate: 300, Batch: 1, Producers: 1, Consumers: 1, Warmup: warm, Duration: dur, Drain: 2 * time.Second})
			r, err := newRunner(sc)
			if err != nil {
				t.Fatal(err)
			}
			r.epoch = time.Now().Add(-c.now) // the cell started at the epoch, c.now ago
			if c.started {
				r.cells[0].tl.begin(0)
			}
			if c.ended > 0 {
				e := r.epoch.Add(c.ended)
				r.cells[0].endedAt.Store(&e)
			}
			got, ok := r.MeasuredTime(0)
			want := c.want
			if ok != (want > 0) || (ok && (got < want || got > want+time.Second)) {
				t.Errorf("measured %v (ok %v); want %v", got, ok, want)
			}
		})
	}
}
