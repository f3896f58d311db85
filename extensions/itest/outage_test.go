package itest

import (
	"strings"
	"testing"
	"time"
)

// runWithOutage runs testdata/SCENARIO.yaml while b is SIGKILLed once the run's first cell
// has run killAt (warm-up included, told by the run's own progress lines, so a slow setup on a
// loaded machine does not move the kill into it) and started again 2 s later. It returns the
// run once k6 ended; a run that wrote no summary fails the test.
func runWithOutage(t *testing.T, scenario string, killAt time.Duration, b *privateBroker) run {
	t.Helper()
	return runWithOutageProbe(t, scenario, killAt, b, nil)
}

// runWithOutageProbe is runWithOutage calling probe (when not nil) just before the kill:
// what the broker holds then is what a kill can take with it.
func runWithOutageProbe(t *testing.T, scenario string, killAt time.Duration, b *privateBroker, probe func()) run {
	t.Helper()
	return runWithOutageStop(t, scenario, killAt, b, probe, func(t *testing.T) { b.run(t, "kill.sh") })
}

// runWithOutageStop is runWithOutageProbe with stop in place of the SIGKILL (a graceful stop
// that keeps the broker's data, for a broker whose persistence is written at its stop).
func runWithOutageStop(t *testing.T, scenario string, killAt time.Duration, b *privateBroker, probe func(), stop func(t *testing.T)) run {
	t.Helper()
	done := make(chan run, 1)
	launched := time.Now()
	at := &cellElapsed{want: killAt, reached: make(chan struct{})}
	go func() {
		done <- runScenarioEnvTee(t, "extensions/itest/testdata/"+scenario+".yaml", []string{"MQ_PROGRESS=200ms"}, at)
	}()
	select {
	case <-at.reached:
	case r := <-done:
		t.Fatalf("the run ended before its cell was %v in (exit %d)\n%s", killAt, r.code, r)
	}
	if probe != nil {
		probe()
	}
	stop(t)
	killed := time.Now()
	time.Sleep(2 * time.Second)
	b.run(t, "start.sh")
	back := time.Now()
	t.Logf("killed %v after k6 started (its cell %v in); broker back (start.sh returned) %v after the kill",
		killed.Sub(launched).Round(100*time.Millisecond), killAt, back.Sub(killed).Round(100*time.Millisecond))
	r := <-done
	if r.summary == nil {
		t.Fatalf("no summary written (exit %d)\n%s", r.code, r)
	}
	r.brokerBack = back
	return r
}

// checkOutage is what every kill-and-restart test asks of the run's first cell: it ran to
// the end of its drain, its ledger adds up (every issued message was received, lost, held by
// the broker, failed to send, or had no outcome yet), and the outage shows (failed or
// unconfirmed sends, lost messages, or messages held back ≥ 1 s). It returns the cell's timeline, on which "resumed after the restart" is judged.
func checkOutage(t *testing.T, r run) timeline {
	t.Helper()
	cell := r.summary.Cells[0]
	l := cell.Ledger
	t.Logf("sent %d received %d publish errors %d lost %d unconfirmed %d held %d duplicated %d e2e max %.0fus exit %d",
		cell.Sent, cell.Received, cell.PublishErrors, l.Lost, l.Unconfirmed, l.Held, l.Duplicated, cell.E2ELatency.Max, r.code)
	tl := readTimeline(t, r)
	if started, err := time.Parse(time.RFC3339Nano, cell.StartedAt); err == nil && !r.brokerBack.IsZero() {
		tl.backS = r.brokerBack.Sub(started).Seconds()
	}
	t.Logf("timeline: %s", tl.describe())
	if !cell.LedgerFinal {
		t.Errorf("ledger not final: the cell did not run to the end of its drain")
	}
	if l.Lost+l.Held+l.Unconfirmed+l.Failed+cell.Received+cell.ReceivedWarmup < l.Issued || cell.Received+cell.ReceivedWarmup > l.Issued+l.Duplicated {
		t.Errorf("ledger does not add up: %+v, received %d+%d", l, cell.Received, cell.ReceivedWarmup)
	}
	if cell.PublishErrors == 0 && l.Lost+l.Unconfirmed+l.Held == 0 && cell.E2ELatency.Max < 1e6 {
		t.Errorf("a 2 s outage left no trace: no publish error, no loss, e2e max %.0fus", cell.E2ELatency.Max)
	}
	return tl
}

// checkExitFollowsThresholds: exit 0 when the thresholds held, 99 when they failed, nothing
// else.
func checkExitFollowsThresholds(t *testing.T, r run) {
	t.Helper()
	if (r.code == 99) == r.summary.ThresholdsOK || (r.code != 0 && r.code != 99) {
		t.Fatalf("exit %d with thresholds_ok=%v\n%s", r.code, r.summary.ThresholdsOK, r)
	}
}

// checkUnreachable runs testdata/SCENARIO.yaml, whose url points where nothing listens
// (127.0.0.1:1): exit 112, one line naming the broker and the address, never the password
// itest-secret, no stack trace.
func checkUnreachable(t *testing.T, scenario, broker string) {
	t.Helper()
	r := runScenario(t, "extensions/itest/testdata/"+scenario+".yaml")
	if r.code != 112 {
		t.Fatalf("exit %d, want 112\n%s", r.code, r)
	}
	lines := nonEmptyLines(r.stderr)
	if len(lines) != 1 || !strings.Contains(lines[0], broker) || !strings.Contains(lines[0], "127.0.0.1:1") {
		t.Errorf("want one line naming %s and 127.0.0.1:1, got:\n%s", broker, r.stderr)
	}
	if strings.Contains(r.stderr+r.stdout, "itest-secret") {
		t.Errorf("the password reached the output:\n%s", r)
	}
	noStackTrace(t, r)
}
