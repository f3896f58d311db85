package itest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// privateBroker starts its own instance of a broker through the project's scripts, in its
// own state dir and ports, so killing it cannot disturb the shared brokers other tests use.
type privateBroker struct {
	t    *testing.T
	name string
	env  []string
}

func startPrivate(t *testing.T, name string, portEnv ...string) *privateBroker {
	t.Helper()
	b := &privateBroker{t: t, name: name, env: append(append(os.Environ(), "MQBENCH_STATE="+t.TempDir()), portEnv...)}
	b.script("start.sh")
	t.Cleanup(func() { b.script("stop.sh") })
	return b
}

func (b *privateBroker) script(name string) {
	b.t.Helper()
	cmd := exec.Command(filepath.Join(repoRoot(b.t), "scripts", "brokers", name), b.name)
	cmd.Env = b.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		b.t.Fatalf("%s %s: %v\n%s", name, b.name, err, out.String())
	}
}

// The broker process is SIGKILLed in the middle of a cell and started again: the run must go
// on, reconnect, finish the cell, count the damage (publish errors, losses, delays) in a
// ledger that adds up, write its results, and let the loss threshold decide the exit code.
func TestBrokerKilledAndRestartedMidRun(t *testing.T) {
	k6Binary(t)
	cases := []struct {
		broker   string
		scenario string
		ports    []string
	}{
		{"nats", "fault-nats", []string{"NATS_PORT=14222", "NATS_MONITOR_PORT=18222"}},
		{"redis", "fault-redis-streams", []string{"REDIS_PORT=16379"}},
		{"redis", "fault-redis-pubsub", []string{"REDIS_PORT=16379"}},
	}
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			b := startPrivate(t, c.broker, c.ports...)
			done := make(chan run, 1)
			go func() { done <- runScenario(t, "extensions/itest/testdata/"+c.scenario+".yaml") }()
			time.Sleep(4500 * time.Millisecond) // k6 start + setup + 1 s warm-up + ~3 s measured
			b.script("kill.sh")
			time.Sleep(2 * time.Second)
			b.script("start.sh")
			r := <-done

			if r.summary == nil {
				t.Fatalf("no summary written (exit %d)\n%s", r.code, r)
			}
			if (r.code == 99) == r.summary.ThresholdsOK || (r.code != 0 && r.code != 99) {
				t.Fatalf("exit %d with thresholds_ok=%v\n%s", r.code, r.summary.ThresholdsOK, r)
			}
			cell := r.summary.Cells[0]
			l := cell.Ledger
			t.Logf("sent %d received %d publish errors %d lost %d duplicated %d e2e max %.0fus exit %d",
				cell.Sent, cell.Received, cell.PublishErrors, l.Lost, l.Duplicated, cell.E2ELatency.Max, r.code)
			if !cell.LedgerFinal {
				t.Errorf("ledger not final: the cell did not run to the end of its drain")
			}
			// The ledger adds up: every issued message was received, lost, or failed to send.
			if l.Lost+l.Failed+cell.Received+cell.ReceivedWarmup < l.Issued || cell.Received+cell.ReceivedWarmup > l.Issued+l.Duplicated {
				t.Errorf("ledger does not add up: %+v, received %d+%d", l, cell.Received, cell.ReceivedWarmup)
			}
			// The outage shows: failed sends, lost messages, or messages held back ≥ 1 s.
			if cell.PublishErrors == 0 && l.Lost == 0 && cell.E2ELatency.Max < 1e6 {
				t.Errorf("a 2 s outage left no trace: no publish error, no loss, e2e max %.0fus", cell.E2ELatency.Max)
			}
			// The run went on after the restart: more arrived than was sent before the kill.
			if cell.Sent < 1500 || cell.Received < cell.Sent/2 {
				t.Errorf("sent %d, received %d: the run did not resume after the restart", cell.Sent, cell.Received)
			}
		})
	}
}
