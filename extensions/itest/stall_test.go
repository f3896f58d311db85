package itest

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// The "CTRL+Z test" on real brokers: the broker process is stopped (SIGSTOP) for a few
// seconds in the middle of a cell's measurement and let go (SIGCONT). Nothing is lost or
// fails (the broker only paused), and the open-model latency must show the stall as theory
// says: at a fixed rate, the messages due during a stall of S seconds wait until its end, so
// their latency from the intended send time is spread evenly over 0…S. Over a measured period
// of D seconds the share of samples above x (< S) is (S−x)/D, so the q-quantile is
// S − (1−q)·D wherever that lies well inside the stall. The latency threshold breaks (exit
// 99) and the no-loss one holds.
func TestBrokerStalledMidCell(t *testing.T) {
	k6Binary(t)
	// The shared brokers (scripts/test.sh started them): a paused broker is let go before the
	// test ends and the itests run one at a time here, so no other test sees the pause, and no
	// private instance needs starting (RabbitMQ's and Kafka's took ~10 s each).
	cases := []struct{ broker, scenario string }{
		{"nats", "stall-nats"},
		{"rabbitmq", "stall-rabbitmq"},
		{"kafka", "stall-kafka"},
	}
	const stall = 2 * time.Second
	// The stall starts 2 s into the measured period (the cells' warm-up is 1 s), told by the
	// run's own progress lines: setup times vary (Kafka creates a topic and joins a group).
	t.Setenv("MQ_PROGRESS", "200ms")
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			b := sharedBroker(t, c.broker)
			done := make(chan run, 1)
			at := &cellElapsed{want: 3 * time.Second, reached: make(chan struct{})}
			go func() { done <- runScenarioTee(t, "extensions/itest/testdata/"+c.scenario+".yaml", at) }()
			select {
			case <-at.reached:
			case r := <-done:
				t.Fatalf("the run ended before its cell was 3 s in (exit %d)\n%s", r.code, r)
			}
			b.script("pause.sh")
			stopped := time.Now()
			resumed := false
			t.Cleanup(func() { // a failed test must not leave a stopped broker to stop.sh
				if !resumed {
					b.script("resume.sh")
				}
			})
			time.Sleep(stall)
			b.script("resume.sh")
			resumed = true
			s := time.Since(stopped).Seconds()
			r := <-done
			if r.summary == nil || len(r.summary.Cells) != 1 {
				t.Fatalf("no summary with one cell (exit %d)\n%s", r.code, r)
			}
			checkStall(t, r, stopped, s)
		})
	}
}

// checkStall judges one stalled run: the stall lay inside the measured period, the ledger is
// whole, the e2e-from-intended quantiles match theory, and the verdict follows.
func checkStall(t *testing.T, r run, stopped time.Time, s float64) {
	t.Helper()
	cell := r.summary.Cells[0]
	l := cell.Ledger
	t.Logf("stall %.2fs; sent %d received %d publish errors %d; ledger %+v; e2e_intended %v, max %.0fus; exit %d",
		s, cell.Sent, cell.Received, cell.PublishErrors, l, cell.E2EIntendedLatency.P, cell.E2EIntendedLatency.Max, r.code)
	started, err := time.Parse(time.RFC3339Nano, cell.StartedAt)
	if err != nil {
		t.Fatalf("started_at %q: %v", cell.StartedAt, err)
	}
	measured := started.Add(time.Duration(cell.WarmupS * float64(time.Second)))
	end := measured.Add(time.Duration(cell.DurationS * float64(time.Second)))
	if stopped.Before(measured) || stopped.Add(time.Duration(s*float64(time.Second))).After(end) {
		t.Fatalf("the stall (%s + %.1fs) fell outside the measured period %s … %s: the test's timing no longer fits the scenario",
			stopped.Format(time.RFC3339Nano), s, measured.Format(time.RFC3339Nano), end.Format(time.RFC3339Nano))
	}
	// A stalled broker loses nothing and refuses nothing; everything sent arrived once.
	if l.Lost != 0 || l.Failed != 0 || l.Unconfirmed != 0 || l.Held != 0 || cell.PublishErrors != 0 || l.Late != 0 {
		t.Errorf("a stall is not an outage: lost %d, failed %d, unconfirmed %d, held %d, publish errors %d, late %d",
			l.Lost, l.Failed, l.Unconfirmed, l.Held, cell.PublishErrors, l.Late)
	}
	if got := cell.Received + cell.ReceivedWarmup - l.Duplicated; got != l.Issued {
		t.Errorf("received %d unique of %d issued", got, l.Issued)
	}
	d := cell.DurationS
	checked := 0
	for _, q := range []struct {
		key string
		q   float64
	}{{"p99", 0.99}, {"p95", 0.95}, {"p90", 0.90}} {
		want := s - (1-q.q)*d // seconds
		if want < 0.25*s {    // too near the stall's start, where the body of the distribution begins
			continue
		}
		got, ok := cell.E2EIntendedLatency.P[q.key]
		if !ok {
			t.Errorf("e2e_intended_latency_us has no %s", q.key)
			continue
		}
		got /= 1e6
		// The slack: the broker's own latency, the backlog it works off after SIGCONT, the
		// signal's timing, and a loaded 2-core machine.
		if tol := 0.3 + 0.15*want; math.Abs(got-want) > tol {
			t.Errorf("e2e_intended %s = %.3fs, theory %.3fs (stall %.2fs over %.0fs) ± %.2fs", q.key, got, want, s, d, tol)
		}
		checked++
	}
	if checked == 0 {
		t.Errorf("no quantile falls inside the stall for D=%.0fs S=%.1fs: the scenario no longer fits the test", d, s)
	}
	if mx := cell.E2EIntendedLatency.Max / 1e6; mx < 0.9*s || mx > s+1.5 {
		t.Errorf("e2e_intended max %.3fs, want about the stall %.2fs", mx, s)
	}
	// The verdict: the latency threshold broke, the no-loss one held, exit 99.
	if r.code != 99 {
		t.Errorf("exit %d, want 99 (the latency threshold broken by the stall)", r.code)
	}
	seen := map[string]bool{}
	for _, th := range append(r.summary.Thresholds, cell.Thresholds...) {
		key := fmt.Sprintf("%s %s", th.Metric, th.Expression)
		switch name, _, _ := strings.Cut(th.Metric, "{"); name {
		case "mq_messages_lost":
			seen[key] = true
			if !th.OK {
				t.Errorf("%s failed", key)
			}
		case "mq_e2e_intended_latency":
			seen[key] = true
			if th.OK {
				t.Errorf("%s held through a %.1fs stall", key, s)
			}
		}
	}
	if len(seen) < 2 {
		t.Errorf("thresholds judged: %v, want the loss and the latency threshold", seen)
	}
}
