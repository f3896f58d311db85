package itest

import (
	"math"
	"strings"
	"testing"
)

// A rate threshold on a counter is judged per cell: the cell's count over its measured time
// (3 s), not over the whole test run (about 12 s) as k6 divides a counter. A 300 msg/s cell
// passes "rate > 250" on mq_messages_received; k6's rule read 75/s and failed it. The
// console, summary.json and the exit code say the same.
func TestCounterRateIsPerCell(t *testing.T) {
	r := runScenario(t, "extensions/itest/testdata/counter-rate-nats.yaml")
	if r.code != 0 || r.summary == nil {
		t.Fatalf("exit %d, summary written: %v\n%s", r.code, r.summary != nil, r)
	}
	// Per cell: the threshold's value is the cell's count over its measured time (its
	// duration: the cell ran to its end), exactly.
	for _, c := range r.summary.Cells {
		count := map[string]uint64{"mq_messages_received": c.Received, "mq_messages_sent": c.Sent}
		rates := 0
		for _, th := range c.Thresholds {
			if !strings.HasPrefix(th.Expression, "rate") {
				continue
			}
			rates++
			n, ok := count[strings.TrimSuffix(th.Metric, "{cell:"+c.ID+"}")]
			if th.Value == nil || !th.OK || th.EvaluatedBy != "mqbench" || !ok {
				t.Errorf("%s %s: ok %v value %v by %q; want a pass judged by mqbench", th.Metric, th.Expression, th.OK, th.Value, th.EvaluatedBy)
				continue
			}
			if v, want := *th.Value, float64(n)/c.DurationS; math.Abs(v-want) > 1e-9*want {
				t.Errorf("%s %s: measured %.3f/s, want %d over the cell's %g s = %.3f/s", th.Metric, th.Expression, v, n, c.DurationS, want)
			}
		}
		if rates == 0 {
			t.Errorf("%s: no rate threshold in summary.json", c.ID)
		}
	}
	if !r.summary.ThresholdsOK || !strings.Contains(r.stdout, "ok    mq_messages_received{cell:c1}  rate > 250  (measured ") {
		t.Errorf("thresholds_ok %v; the console lacks the passing c1 rate line:\n%s", r.summary.ThresholdsOK, r.stdout)
	}
}
