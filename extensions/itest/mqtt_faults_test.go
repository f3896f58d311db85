package itest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Mosquitto (with persistence) stopped gracefully 3 s into a cell and started again 2 s
// later, on a private instance: with QoS 1 and persistent sessions nothing the broker
// acknowledged is lost (its queued messages are saved at the stop and the consumer's session
// takes them on its return; duplicates are duplicates, not errors); with QoS 0 the messages
// no one was subscribed for are reported lost and the loss threshold fails the run (99).
// A crash (SIGKILL) is not this test: Mosquitto's persistence is a snapshot written at a
// stop and every autosave interval, so a crash loses what changed since (documented).
func TestMQTTBrokerRestartedMidRun(t *testing.T) {
	k6Binary(t)
	waitTurn(t, 40*time.Second)
	b := startPrivate(t, "mosquitto", "MOSQUITTO_PORT=11883")
	t.Run("qos1-persistent", func(t *testing.T) {
		r := runWithOutageStop(t, "fault-mqtt-qos1", 4*time.Second, b, nil, b.terminate)
		checkExitFollowsThresholds(t, r)
		tl := checkOutage(t, r)
		cell := r.summary.Cells[0]
		if cell.Ledger.Lost != 0 {
			t.Errorf("QoS 1 with persistent sessions lost %d messages across a graceful restart", cell.Ledger.Lost)
		}
		if r.code != 0 {
			t.Errorf("exit %d: the no-loss threshold should hold\n%s", r.code, r)
		}
		tl.resumedAtTheEnd(t, 3*time.Second, cell.Rate)
	})
	t.Run("qos0", func(t *testing.T) {
		r := runWithOutageStop(t, "fault-mqtt-qos0", 4*time.Second, b, nil, b.terminate)
		checkExitFollowsThresholds(t, r)
		checkOutage(t, r)
		cell := r.summary.Cells[0]
		if cell.Ledger.Lost == 0 {
			t.Errorf("QoS 0 across a restart: no message reported lost (sent %d, received %d, publish errors %d)", cell.Sent, cell.Received, cell.PublishErrors)
		}
		if r.code != 99 {
			t.Errorf("exit %d, want 99: the loss threshold must fail\n%s", r.code, r)
		}
	})
}

// terminate stops the broker as a service manager would (SIGTERM, wait for it to exit),
// keeping its data dir, unlike stop.sh, which removes it.
func (b *privateBroker) terminate(t *testing.T) {
	t.Helper()
	var state string
	for _, kv := range b.env {
		if v, ok := strings.CutPrefix(kv, "MQBENCH_STATE="); ok {
			state = v
		}
	}
	raw, err := os.ReadFile(filepath.Join(state, "run", b.name+".pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s pid %d still alive 10 s after SIGTERM", b.name, pid)
		}
	}
}
