package itest

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Pulsar runs in its own phase of make test (scripts/test.sh phases): these tests start with
// TestPulsar so the phase runs them, and the main itest step skips them.

// TestPulsar: a short real run on a persistent topic: every message sent is acknowledged by
// the broker (send receipt) and received once, warm-up included.
func TestPulsar(t *testing.T) {
	checkDelivery(t, "pulsar", true, noServer)
	if left := pulsarLeftovers(t); len(left) > 0 {
		t.Errorf("topics left after the run: %v", left)
	}
}

// TestPulsarUnreachable: nothing listens: exit 112, one line naming pulsar and the address.
func TestPulsarUnreachable(t *testing.T) { checkUnreachable(t, "unreachable-pulsar", "pulsar") }

// TestPulsarRefused: the broker answers but refuses the topic (no such tenant): exit 113 with
// the broker's reason.
func TestPulsarRefused(t *testing.T) {
	r := runScenario(t, "extensions/itest/testdata/refused-pulsar.yaml")
	if r.code != 113 {
		t.Fatalf("exit %d, want 113\n%s", r.code, r)
	}
	if !strings.Contains(r.stderr, "pulsar") || !strings.Contains(r.stderr, "not found") {
		t.Errorf("stderr does not name pulsar and the broker's reason:\n%s", r.stderr)
	}
	noStackTrace(t, r)
}

// killPulsar (TestBrokerKilledAndRestartedMidRun/pulsar): a private Pulsar (own state dir
// and ports, the shared instance's jars) is SIGKILLed ~4 s into the measurement and started again 2 s later: the run goes on, the
// producer and consumer reconnect, the results are written, the ledger adds up, and the
// messages sent after the restart arrive.
func killPulsar(t *testing.T) {
	lib := filepath.Join(repoRoot(t), ".cache", "brokers", "pulsar", "lib")
	if st := os.Getenv("MQBENCH_STATE"); st != "" {
		lib = filepath.Join(st, "pulsar", "lib")
	}
	b := startPrivate(t, "pulsar", "PULSAR_PORT=16750", "PULSAR_WEB_PORT=18180", "PULSAR_LIB="+lib,
		"PULSAR_HEAP_OPTS=-Xms128m -Xmx512m -XX:MaxDirectMemorySize=256m")
	r := runWithOutage(t, "fault-pulsar", 5*time.Second, b) // warm-up 1 s + 4 s
	checkExitFollowsThresholds(t, r)
	tl := checkOutage(t, r)
	tl.resumedAtTheEnd(t, 10*time.Second, r.summary.Cells[0].Rate)
}

// pulsarLeftovers lists the shared broker's topics in public/default named like the itests'.
func pulsarLeftovers(t *testing.T) []string {
	t.Helper()
	var left []string
	for _, domain := range []string{"persistent", "non-persistent"} {
		body := httpGet(t, "http://127.0.0.1:8180/admin/v2/"+domain+"/public/default")
		for _, name := range strings.Split(strings.Trim(body, "[] \n"), ",") {
			if strings.Contains(name, "mqbench-itest-") {
				left = append(left, strings.Trim(name, `"`))
			}
		}
	}
	return left
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", url, resp.Status, err)
	}
	return string(b)
}
