package verdict

import (
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// staged: c1 has a named stage "spike" whose e2e latencies are 5 ms, while the cell's are
// 1 ms; c2 has no stages.
type staged struct{ twoCells }

func (s staged) StageTrend(cell int, stage, metric string) *hist.Hist {
	if cell != 0 || stage != "spike" || metric != "mq_e2e_latency" {
		return nil
	}
	h := hist.New()
	for range 10 {
		h.Record(int64(5 * time.Millisecond))
	}
	return h
}

var _ StageSource = staged{}

// A stage filter judges the stage's own distribution, not the cell's; a stage no selected
// cell has, or a source that keeps none, is no data (a fail), never a pass.
func TestStageThresholds(t *testing.T) {
	h := hist.New()
	for range 100 {
		h.Record(int64(time.Millisecond))
	}
	src := staged{twoCells{e2e: h}}
	for _, c := range []struct {
		key, expr string
		src       Source
		status    string
		value     float64
	}{
		{"mq_e2e_latency{stage:spike}", "p(99)<3", src, StatusFail, 5},
		{"mq_e2e_latency{stage:spike}", "p(99)<10", src, StatusPass, 5},
		{"mq_e2e_latency{cell:c1,stage:spike}", "max<10", src, StatusPass, 5},
		{"mq_e2e_latency{cell:c1}", "p(99)<3", src, StatusPass, 1},
		{"mq_e2e_latency{stage:peak}", "p(99)<10", src, StatusNoData, 0},
		{"mq_schedule_lag{stage:spike}", "p(99)<10", src, StatusNoData, 0},
		{"mq_e2e_latency{stage:spike}", "p(99)<10", twoCells{e2e: h}, StatusNoData, 0},
	} {
		th, err := New(c.key, c.expr, c.expr, true)
		if err != nil {
			t.Fatal(err)
		}
		r := th.Eval(c.src, time.Second)
		if r.Status() != c.status || (r.Measured && r.Value < c.value*0.99 || r.Value > c.value*1.01) {
			t.Errorf("%s %s: %s %v, want %s %v", c.key, c.expr, r.Status(), r.Value, c.status, c.value)
		}
	}
}
