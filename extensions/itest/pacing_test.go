package itest

import "testing"

// Precise pacing in a real k6 run: with Go's timers alone k6 starts iterations up to ~1.1 ms
// late (median ~0.5 ms); with the pacer, tens of microseconds. Both runs are on the same
// machine a few seconds apart, so the comparison holds under load where a fixed bound would
// not; the figures themselves are make bench's.
func TestPrecisePacingStartsIterationsOnTime(t *testing.T) {
	lag := map[string]stats{}
	for _, pacing := range []string{"precise", "timer"} {
		t.Setenv("MQBENCH_ITEST_PACING", pacing)
		r := runScenario(t, "extensions/itest/testdata/nats-pacing.yaml")
		if r.code != 0 || r.summary == nil {
			t.Fatalf("pacing %s: exit %d\n%s", pacing, r.code, r)
		}
		c := r.summary.Cells[0]
		if c.Received != c.Sent || c.Sent == 0 {
			t.Errorf("pacing %s: sent %d, received %d", pacing, c.Sent, c.Received)
		}
		lag[pacing] = c.ScheduleLag
		t.Logf("pacing %s: schedule lag p50 %.0f µs, p99 %.0f µs; e2e p50 %.0f µs, from intended %.0f µs", pacing,
			c.ScheduleLag.P["p50"], c.ScheduleLag.P["p99"], c.E2ELatency.P["p50"], c.E2EIntendedLatency.P["p50"])
	}
	if p, tm := lag["precise"].P["p50"], lag["timer"].P["p50"]; !(p < tm/2) {
		t.Errorf("schedule lag p50: precise %.0f µs, timer %.0f µs; want precise under half of timer", p, tm)
	}
}
