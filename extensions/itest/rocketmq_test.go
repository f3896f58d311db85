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

// Three short runs, async, sync and async batch sends: every measured message exactly once, plausible
// latencies (publish latency = the broker's send result), nothing left behind.
func TestRocketMQDelivery(t *testing.T) {
	for _, f := range []string{"rocketmq", "rocketmq-sync", "rocketmq-batch"} {
		t.Run(f, func(t *testing.T) {
			sideBySide(t)
			checkDelivery(t, f, true, noServer)
		})
	}
}

// An unreachable name server: exit 112, one line naming rocketmq and the address.
func TestRocketMQUnreachable(t *testing.T) { checkUnreachable(t, "unreachable-rocketmq", "rocketmq") }

// A private RocketMQ (name server + broker, one JVM) is SIGKILLed ~3 s into the cell and
// started again 2 s later, as TestBrokerKilledAndRestartedMidRun does for the other brokers:
// the run goes on, the clients reconnect, the ledger adds up, the outage shows, results are
// written, the thresholds decide the exit code, and at the end of the cell messages are sent
// and received at the cell's rate again.
func killRocketMQ(t *testing.T) {
	b := startPrivate(t, "rocketmq", "ROCKETMQ_NAMESRV_PORT=19976", "ROCKETMQ_PORT=21011")
	// setup (topic, group) over, ~3 s into the measured cell
	r := runWithOutage(t, "fault-rocketmq", 4*time.Second, b)
	checkExitFollowsThresholds(t, r)
	noStackTrace(t, r)
	tl := checkOutage(t, r)
	tl.resumedAtTheEnd(t, 5*time.Second, r.summary.Cells[0].Rate)
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
