package itest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A threshold that cannot hold fails the run with k6's code 99, and the results are still
// written with the failing threshold named.
func TestFailingThresholdExits99(t *testing.T) {
	r := runScenario(t, "extensions/itest/testdata/threshold-fail.yaml")
	if r.code != 99 {
		t.Fatalf("exit %d, want 99\n%s", r.code, r)
	}
	if r.summary == nil || r.summary.ThresholdsOK {
		t.Fatalf("summary missing or thresholds_ok true\n%s", r)
	}
	found := false
	for _, th := range r.summary.Thresholds {
		if th.Metric == "mq_e2e_latency{cell:c1}" && !th.OK {
			found = true
		}
	}
	if !found {
		t.Errorf("failing threshold not reported: %+v", r.summary.Thresholds)
	}
	if !strings.Contains(r.stdout, "FAIL") {
		t.Errorf("console summary does not say FAIL:\n%s", r.stdout)
	}
	// The last lines name the breach as the scenario wrote it, with the value measured; k6's
	// internal verdict gauge never reaches the console.
	lines := nonEmptyLines(r.stderr)
	if n := len(lines); n < 2 || !strings.HasPrefix(lines[n-2], "mqbench: 1 of ") || !regexp.MustCompile(`^  mq_e2e_latency\{cell:c1\} p\(99\) < 1ns: measured [0-9.]+(us|ms)$`).MatchString(lines[n-1]) {
		t.Errorf("stderr does not end with the breach in the scenario's words:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr+r.stdout, "mq_threshold_failed") {
		t.Errorf("an internal metric name reached the console:\n%s", r)
	}
}

// An invalid scenario: exit 111, every problem located as file:line:col, no stack trace, no results.
func TestInvalidScenarioExits111(t *testing.T) {
	r := runScenario(t, "scenarios/invalid/many-errors.yaml")
	if r.code != 111 {
		t.Fatalf("exit %d, want 111\n%s", r.code, r)
	}
	if !strings.Contains(r.stderr, "scenarios/invalid/many-errors.yaml:") {
		t.Errorf("error does not name the file and line:\n%s", r.stderr)
	}
	noStackTrace(t, r)
	if r.resultsDir != "" {
		t.Errorf("results written for a scenario that never ran: %s", r.resultsDir)
	}
}

// An unreachable broker: exit 112, one line naming the broker and address, no stack trace.
func TestUnreachableBrokerExits112(t *testing.T) {
	r := runScenario(t, "extensions/itest/testdata/unreachable-redis.yaml")
	if r.code != 112 {
		t.Fatalf("exit %d, want 112\n%s", r.code, r)
	}
	lines := nonEmptyLines(r.stderr)
	if len(lines) != 1 || !strings.Contains(lines[0], "redis") || !strings.Contains(lines[0], "127.0.0.1:1") {
		t.Errorf("want one line naming redis and 127.0.0.1:1, got:\n%s", r.stderr)
	}
	noStackTrace(t, r)
}

// Every sample carries the cell's tags so InfluxDB, Grafana and thresholds can tell cells apart.
func TestSamplesAreTagged(t *testing.T) {
	waitTurn(t, 11*time.Second) // tags and counts, no timing judged (its threshold: p(99) < 2s): in the waiting tier
	out := filepath.Join(t.TempDir(), "samples.json")
	r := runScenario(t, "extensions/itest/testdata/nats-core-embedded.yaml", "--out", "json="+out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]map[string]bool{} // metric → cells seen
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var p struct {
			Type, Metric string
			Data         struct{ Tags map[string]string }
		}
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil || p.Type != "Point" || !strings.HasPrefix(p.Metric, "mq_") {
			continue
		}
		tags := p.Data.Tags
		for _, k := range []string{"cell", "size", "rate", "broker", "mq_scenario", "scenario", "testid"} {
			if tags[k] == "" {
				t.Fatalf("%s sample without tag %q: %v", p.Metric, k, tags)
			}
		}
		if tags["broker"] != "nats" || tags["mq_scenario"] != "nats-core-embedded" {
			t.Fatalf("wrong tags %v", tags)
		}
		if seen[p.Metric] == nil {
			seen[p.Metric] = map[string]bool{}
		}
		seen[p.Metric][tags["cell"]+"/"+tags["size"]+"/"+tags["rate"]] = true
	}
	for _, m := range []string{"mq_e2e_latency", "mq_e2e_intended_latency", "mq_schedule_lag", "mq_messages_sent", "mq_messages_received", "mq_messages_lost"} {
		if !seen[m]["c1/256B/500"] || !seen[m]["c2/1KB/1000"] {
			t.Errorf("%s: cells seen %v, want c1/256B/500 and c2/1KB/1000", m, seen[m])
		}
	}
}

// Credentials from the environment that the broker refuses: exit 113 (refused, not
// unreachable), one line, and the secret appears nowhere.
func TestRefusedCredentialsExit113WithoutEchoingThem(t *testing.T) {
	k6Binary(t)
	startPrivate(t, "redis", "REDIS_PORT=16380")
	if out, err := exec.Command("redis-cli", "-p", "16380", "config", "set", "requirepass", "the-right-one").CombinedOutput(); err != nil {
		t.Fatalf("setting requirepass: %v %s", err, out)
	}
	t.Setenv("MQB_ITEST_SECRET", "hunter2-do-not-print")
	r := runScenario(t, "extensions/itest/testdata/secret-redis.yaml")
	if r.code != 113 {
		t.Fatalf("exit %d, want 113\n%s", r.code, r)
	}
	if strings.Contains(r.stdout+r.stderr, "hunter2") {
		t.Errorf("the secret was printed:\n%s", r)
	}
	if lines := nonEmptyLines(r.stderr); len(lines) != 1 || !strings.Contains(lines[0], "redis") {
		t.Errorf("want one line naming redis, got:\n%s", r.stderr)
	}
	noStackTrace(t, r)
}
