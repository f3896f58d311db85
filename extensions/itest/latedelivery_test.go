package itest

import (
	"testing"
	"time"
)

// A broker that stalls across the end of the drain (SIGSTOP in the cell's last measured
// second, SIGCONT after the drain): its acknowledgements of the messages published meanwhile
// come back after the ledger froze, and the messages themselves arrive after it. They are
// late, not lost: the ledger calls them held (an overloaded broker confirming seconds late
// was reported as losing everything it then delivered).
func TestStallPastTheDrainLosesNothing(t *testing.T) {
	k6Binary(t)
	t.Setenv("MQ_PROGRESS", "200ms")
	b := startPrivate(t, "nats", "NATS_PORT=14422", "NATS_MONITOR_PORT=18422")
	done := make(chan run, 1)
	// 1 s warm-up + 4 s measured + 1 s drain: stopped 4 s in, let go 7.5 s in.
	at := &cellElapsed{want: 4 * time.Second, reached: make(chan struct{})}
	go func() {
		done <- runScenarioTee(t, "extensions/itest/testdata/stall-past-drain-nats.yaml", at)
	}()
	select {
	case <-at.reached:
	case r := <-done:
		t.Fatalf("the run ended before its cell was 4 s in (exit %d)\n%s", r.code, r)
	}
	b.script("pause.sh")
	resumed := false
	t.Cleanup(func() {
		if !resumed {
			b.script("resume.sh")
		}
	})
	time.Sleep(3500 * time.Millisecond)
	b.script("resume.sh")
	resumed = true
	r := <-done
	if r.summary == nil || len(r.summary.Cells) != 1 {
		t.Fatalf("no summary with one cell (exit %d)\n%s", r.code, r)
	}
	c := r.summary.Cells[0]
	l := c.Ledger
	t.Logf("exit %d; sent %d received %d publish errors %d; ledger %+v", r.code, c.Sent, c.Received, c.PublishErrors, l)
	if l.Late == 0 || l.Held == 0 {
		t.Fatalf("nothing arrived after the drain (late %d, held %d): the stall no longer spans the drain's end\n%s", l.Late, l.Held, r)
	}
	if l.Lost != 0 || l.Failed != 0 || c.PublishErrors != 0 {
		t.Errorf("a stalled broker loses nothing: lost %d, failed %d, publish errors %d", l.Lost, l.Failed, c.PublishErrors)
	}
	if got := l.Unique + l.Held + l.Unconfirmed; got != l.Issued {
		t.Errorf("received %d + held %d + unconfirmed %d = %d, want issued %d", l.Unique, l.Held, l.Unconfirmed, got, l.Issued)
	}
	if r.code != 0 {
		t.Errorf("exit %d, want 0 (nothing lost)\n%s", r.code, r)
	}
}
