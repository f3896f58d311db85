package scenario

import (
	"testing"
	"time"
)

func TestRateMax(t *testing.T) {
	s := mustParse(t, `name: t
broker: { type: rabbitmq }
workload: { destination: q, duration: 30s, batch: 10, vus: 8 }
matrix:
  - { size: 1KB, rate: max, duration: 20s }
  - { size: 1KB, rate: 500 }
  - { size: 12B, rate: max, messages: 1000000, inflight: 200 }
`)
	tests := []struct {
		cell                 int
		max                  bool
		rate, inflight, msgs int
		batch, vus           int
		dur                  time.Duration
		label                string
	}{
		// a duration-bound closed loop: the default window; the workload's batch and vus
		// (an arrival-rate schedule's) do not reach it
		{0, true, 0, DefaultInflight, 0, 1, 0, 20 * time.Second, "max"},
		{1, false, 500, 0, 0, 10, 8, 30 * time.Second, "500"},
		// the last cell counts messages: its time limit is the default, not the workload's 30s
		{2, true, 0, 200, 1000000, 1, 0, DefaultMaxLimit, "max"},
	}
	for _, tc := range tests {
		c := s.Cells[tc.cell]
		if c.Max != tc.max || c.Rate != tc.rate || c.Inflight != tc.inflight || c.Messages != tc.msgs ||
			c.Batch != tc.batch || c.VUs != tc.vus || c.Duration != tc.dur || c.RateLabel() != tc.label {
			t.Errorf("cell %d = max %v rate %d inflight %d messages %d batch %d vus %d duration %v label %q, want %+v",
				tc.cell, c.Max, c.Rate, c.Inflight, c.Messages, c.Batch, c.VUs, c.Duration, c.RateLabel(), tc)
		}
	}
}
