// Package itest runs the real bin/k6 on short scenarios against real brokers and checks what
// a user would: exit codes, messages, summary.json, tags on samples. `make test` builds the
// binary, starts the brokers and sets MQBENCH_K6; without it these tests skip, unless
// MQBENCH_REQUIRE_BROKERS=1 (CI) turns the skip into a failure.
package itest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

type run struct {
	code           int
	stdout, stderr string
	summary        *summary
	resultsDir     string
	// brokerBack: when the broker killed during the run was started again (its start.sh
	// returned); zero for runs without an outage.
	brokerBack time.Time
}

// fault is one kill or start a scenario's faults did (summary.json cells[].faults).
type fault struct {
	Action, Asked, Node, Error string
	T                          float64
}

// summary is the part of summary.json the tests read (the format is documented in README).
type summary struct {
	Scenario     string `json:"scenario"`
	RunID        string `json:"run_id"`
	ThresholdsOK bool   `json:"thresholds_ok"`
	Pattern      string `json:"pattern"`
	Complete     bool   `json:"complete"`
	Error        string `json:"error"` // why a run did not run or ended early
	Broker       struct {
		Type    string `json:"type"`
		URL     string `json:"url"`
		AckMode string `json:"ack_mode"`
		Server  string `json:"server"`
	} `json:"broker"`
	Cells []struct {
		ID           string `json:"id"`
		Size         int    `json:"size_bytes"`
		Rate         int    `json:"rate"`
		Load         string `json:"load"`
		Inflight     int    `json:"inflight"`
		BacklogDrain *struct {
			Target         int64            `json:"target"`
			Reached        bool             `json:"reached"`
			Peak           int64            `json:"peak"`
			BuildS         float64          `json:"build_s"`
			Drained        bool             `json:"drained"`
			DrainS         float64          `json:"drain_s"`
			DrainRate      float64          `json:"drain_rate"`
			NetDrainRate   float64          `json:"net_drain_rate"`
			PublishLatency map[string]stats `json:"publish_latency_us"`
		} `json:"backlog_drain"`
		Producers          int         `json:"producers"`
		Sent               uint64      `json:"sent"`
		Acked              uint64      `json:"acked"`
		Received           uint64      `json:"received"`
		PublishErrors      uint64      `json:"publish_errors"`
		SentWarmup         uint64      `json:"sent_warmup"`
		ReceivedWarmup     uint64      `json:"received_warmup"`
		SenderRate         float64     `json:"sender_rate"`
		ReceiverRate       float64     `json:"receiver_rate"`
		E2ERate            float64     `json:"e2e_rate"`
		DroppedIterations  float64     `json:"dropped_iterations"`
		LedgerFinal        bool        `json:"ledger_final"`
		StartedAt          string      `json:"started_at"`
		EndedAt            string      `json:"ended_at"`
		Ledger             ledgerTally `json:"ledger"`
		PublishLatency     stats       `json:"publish_latency_us"`
		E2ELatency         stats       `json:"e2e_latency_us"`
		E2EIntendedLatency stats       `json:"e2e_intended_latency_us"`
		ScheduleLag        stats       `json:"schedule_lag_us"`
		Thresholds         []threshold `json:"thresholds"`
		Faults             []fault     `json:"faults"`
		WarmupS            float64     `json:"warmup_s"`
		DurationS          float64     `json:"duration_s"`
		DrainS             float64     `json:"drain_s"`
		BrokerSide         *brokerSide `json:"broker_side"`
	} `json:"cells"`
	Thresholds []threshold `json:"thresholds"`
}

type ledgerTally struct {
	Issued           uint64 `json:"issued"`
	Failed           uint64 `json:"failed"`
	Unique           uint64 `json:"unique_received"`
	Lost             uint64 `json:"lost"`
	Unconfirmed      uint64 `json:"unconfirmed"`
	Held             uint64 `json:"held"`
	Duplicated       uint64 `json:"duplicated"`
	Reordered        uint64 `json:"reordered"`
	Late             uint64 `json:"late"`
	IssuedAfterClose uint64 `json:"issued_after_close"`
	Unconsumed       uint64 `json:"unconsumed"`
	Subscriptions    []struct {
		Unique      uint64 `json:"unique_received"`
		Lost        uint64 `json:"lost"`
		Unconfirmed uint64 `json:"unconfirmed"`
		Duplicated  uint64 `json:"duplicated"`
	} `json:"subscriptions"`
}

type stats struct {
	Count int64              `json:"count"`
	Min   float64            `json:"min"`
	Mean  float64            `json:"mean"`
	Max   float64            `json:"max"`
	P     map[string]float64 `json:"percentiles"`
}

type threshold struct {
	Metric      string   `json:"metric"`
	Cell        string   `json:"cell"`
	Expression  string   `json:"expression"`
	OK          bool     `json:"ok"`
	Value       *float64 `json:"value"`
	EvaluatedBy string   `json:"evaluated_by"`
}

// repoRoot is the checkout: go test runs a package's tests in its source folder (not
// runtime.Caller, whose paths -trimpath rewrites).
func repoRoot(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(wd, "..", "..")
}

func k6Binary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("MQBENCH_K6")
	if bin == "" {
		if os.Getenv("MQBENCH_REQUIRE_BROKERS") == "1" {
			t.Fatal("MQBENCH_K6 is not set: run through `make test`")
		}
		t.Skip("MQBENCH_K6 not set: run `make test` to build bin/k6 and start the brokers")
	}
	return bin
}

// runScenario runs scripts/run.sh on a scenario with results in a temp dir.
func runScenario(t *testing.T, scenario string, k6args ...string) run {
	t.Helper()
	return runScenarioTee(t, scenario, nil, k6args...)
}

// runScenarioTee is runScenario with k6's stderr (where progress lines go) also written to
// tee as it comes (nil: not).
func runScenarioTee(t *testing.T, scenario string, tee io.Writer, k6args ...string) run {
	t.Helper()
	return runScenarioEnvTee(t, scenario, nil, tee, k6args...)
}

// runScenarioEnvTee is runScenarioTee with env (NAME=VALUE) added to the run's environment:
// what a parallel test cannot set with t.Setenv.
func runScenarioEnvTee(t *testing.T, scenario string, env []string, tee io.Writer, k6args ...string) run {
	t.Helper()
	bin := k6Binary(t)
	root := repoRoot(t)
	results := t.TempDir()
	args := append([]string{scenario}, k6args...)
	cmd := exec.Command(filepath.Join(root, "scripts", "run.sh"), args...)
	cmd.Dir = root
	cmd.Env = append(append(os.Environ(), "MQBENCH_K6="+bin, "MQ_RESULTS="+results), env...)
	r := execRunTee(t, cmd, tee)
	matches, _ := filepath.Glob(filepath.Join(results, "*", "*", "summary.json"))
	if len(matches) == 1 {
		r.resultsDir = filepath.Dir(matches[0])
		b, err := os.ReadFile(matches[0])
		if err != nil {
			t.Fatal(err)
		}
		r.summary = &summary{}
		if err := json.Unmarshal(b, r.summary); err != nil {
			t.Fatalf("summary.json does not parse: %v\n%s", err, b)
		}
	}
	return r
}

// execRun runs cmd and returns its output and exit code; a command that cannot start fails
// the test.
func execRun(t *testing.T, cmd *exec.Cmd) run {
	t.Helper()
	return execRunTee(t, cmd, nil)
}

func execRunTee(t *testing.T, cmd *exec.Cmd, tee io.Writer) run {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if tee != nil {
		cmd.Stderr = io.MultiWriter(&errb, tee)
	}
	err := cmd.Run()
	r := run{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %v: %v", cmd.Args, err)
	}
	return r
}

func (r run) String() string { return "stdout:\n" + r.stdout + "\nstderr:\n" + r.stderr }
