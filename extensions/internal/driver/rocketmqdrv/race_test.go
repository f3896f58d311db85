package rocketmqdrv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// rocketmq-client-go v2.1.2 is not race-free: its client's Shutdown sets a plain bool
// (rmqClient.close) that its own background goroutines (heartbeats, route updates, pulls,
// the connection's reader) read without synchronisation, so every test that closes a
// producer or consumer fails under -race for a race inside the library (v2.1.3's snapshot
// has the same field). make test runs this package with -race, so in a race build the tests
// that talk to the broker skip themselves, and TestWithoutRaceDetector runs them, the same
// tests against the same broker, in a child `go test` without the race detector, failing
// when they fail. The driver's own code paths (acks, in-flight slots, serialised
// deliveries, options) are still compiled and unit-tested with -race.

// brokerTests are the tests that drive the client library against the broker.
const brokerTests = "^(TestConformance|TestOneway|TestFanOut|TestBrokerStats|TestKeptTopic)$"

const childEnv = "MQBENCH_ROCKETMQ_CHILD"

// noRaceDetector skips t in a race build: TestWithoutRaceDetector runs it.
func noRaceDetector(t testing.TB) {
	t.Helper()
	if raceDetector {
		t.Skip("rocketmq-client-go v2.1.2 races in its own shutdown: run without -race by TestWithoutRaceDetector")
	}
}

func TestWithoutRaceDetector(t *testing.T) {
	if !raceDetector {
		t.Skip("not a race build: the broker tests run directly")
	}
	if os.Getenv(childEnv) != "" {
		t.Fatal("a race build inside the child: recursion")
	}
	rmqURL(t) // skips (or fails under MQBENCH_REQUIRE_BROKERS=1) like the tests themselves
	goTool := "go"
	if root := os.Getenv("GOROOT"); root != "" {
		goTool = root + "/bin/go"
	}
	cmd := exec.Command(goTool, "test", "-count=1", "-v", "-run", brokerTests, ".")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	passed := strings.Count(string(out), "--- PASS")
	t.Logf("child go test -run %s: %d passed (sub)tests", brokerTests, passed)
	if err != nil {
		t.Fatalf("the broker tests without the race detector failed: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "--- SKIP") || passed == 0 {
		t.Fatalf("the broker tests were skipped in the child:\n%s", out)
	}
}
