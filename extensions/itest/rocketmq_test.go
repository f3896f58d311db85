package itest

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// RocketMQ's itests: make test runs them in the rocketmq phase (scripts/test.sh), with
// scripts/brokers' rocketmq (name server 127.0.0.1:9976) started alone.

// Two short runs, async and sync sends: every measured message exactly once, plausible
// latencies (publish latency = the broker's send result), nothing left behind.
func TestRocketMQDelivery(t *testing.T) {
	for _, f := range []string{"rocketmq", "rocketmq-sync"} {
		t.Run(f, func(t *testing.T) { checkDelivery(t, f, true) })
	}
}

// An unreachable name server: exit 112, one line naming rocketmq and the address.
func TestRocketMQUnreachable(t *testing.T) {
	r := runScenario(t, "extensions/itest/testdata/unreachable-rocketmq.yaml")
	if r.code != 112 {
		t.Fatalf("exit %d, want 112\n%s", r.code, r)
	}
	lines := nonEmptyLines(r.stderr)
	if len(lines) != 1 || !strings.Contains(lines[0], "rocketmq") || !strings.Contains(lines[0], "127.0.0.1:1") {
		t.Errorf("want one line naming rocketmq and 127.0.0.1:1, got:\n%s", r.stderr)
	}
	noStackTrace(t, r)
}

// A private RocketMQ (name server + broker, one JVM) is SIGKILLed ~3 s into the cell and
// started again 2 s later, as TestBrokerKilledAndRestartedMidRun does for the other brokers:
// the run goes on, the clients reconnect, the ledger adds up, the outage shows, results are
// written, the thresholds decide the exit code, and at the end of the cell messages are sent
// and received at the cell's rate again.
func TestRocketMQFault(t *testing.T) {
	k6Binary(t)
	b := startPrivate(t, "rocketmq", "ROCKETMQ_NAMESRV_PORT=19976", "ROCKETMQ_PORT=21011")
	done := make(chan run, 1)
	launched := time.Now()
	go func() { done <- runScenario(t, "extensions/itest/testdata/fault-rocketmq.yaml") }()
	time.Sleep(5 * time.Second) // setup (topic, group) over, ~3 s into the measured cell
	b.script("kill.sh")
	killed := time.Now()
	time.Sleep(2 * time.Second)
	b.script("start.sh")
	t.Logf("killed %v after k6 started; broker back (start.sh returned) %v after the kill",
		killed.Sub(launched).Round(100*time.Millisecond), time.Since(killed).Round(100*time.Millisecond))
	r := <-done
	if r.summary == nil {
		t.Fatalf("no summary written (exit %d)\n%s", r.code, r)
	}
	if (r.code == 99) == r.summary.ThresholdsOK || (r.code != 0 && r.code != 99) {
		t.Fatalf("exit %d with thresholds_ok=%v\n%s", r.code, r.summary.ThresholdsOK, r)
	}
	noStackTrace(t, r)
	cell := r.summary.Cells[0]
	l := cell.Ledger
	t.Logf("sent %d received %d publish errors %d lost %d duplicated %d e2e max %.0fus exit %d",
		cell.Sent, cell.Received, cell.PublishErrors, l.Lost, l.Duplicated, cell.E2ELatency.Max, r.code)
	tl := readTimeline(t, r)
	t.Logf("timeline: %s", tl.describe())
	if !cell.LedgerFinal {
		t.Errorf("ledger not final: the cell did not run to the end of its drain")
	}
	if l.Lost+l.Failed+cell.Received+cell.ReceivedWarmup < l.Issued || cell.Received+cell.ReceivedWarmup > l.Issued+l.Duplicated {
		t.Errorf("ledger does not add up: %+v, received %d+%d", l, cell.Received, cell.ReceivedWarmup)
	}
	if cell.PublishErrors == 0 && l.Lost == 0 && cell.E2ELatency.Max < 1e6 {
		t.Errorf("a 2 s outage left no trace: no publish error, no loss, e2e max %.0fus", cell.E2ELatency.Max)
	}
	tl.resumedAtTheEnd(t, 5*time.Second, cell.Rate)
}

// itestRetryTopic is the retry topic of a k6 run's group, mqbench-<8 hex run id>[-s<n>]: the
// driver tests' groups (mqbench-run-…, mqbench-test-…) are not the itests' business.
var itestRetryTopic = regexp.MustCompile(`^%RETRY%mqbench-[0-9a-f]{8}(-s[0-9]+)?$`)

// rocketmqLeftovers lists the itests' topics and run groups' retry topics still on
// scripts/brokers' rocketmq (mqadmin topicList).
func rocketmqLeftovers(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command(filepath.Join(repoRoot(t), "scripts/brokers/mqadmin.sh"), "topicList").CombinedOutput()
	if err != nil {
		t.Fatalf("listing rocketmq topics: %v\n%s", err, out)
	}
	var left []string
	for _, name := range strings.Fields(string(out)) {
		if strings.HasPrefix(name, "mqbench-itest-") || itestRetryTopic.MatchString(name) {
			left = append(left, name)
		}
	}
	return left
}
