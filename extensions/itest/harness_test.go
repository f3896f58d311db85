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
	"regexp"
	"strings"
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
		PublishFirstError  string      `json:"publish_first_error"`
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

// checkAuthRun judges one run of a TLS or authentication case: its exit code, the words its
// output must hold, no secret and no stack trace printed, and with exit 0 every message
// delivered once and nothing lost.
func checkAuthRun(t *testing.T, r run, code int, want []string, secrets ...string) {
	t.Helper()
	out := r.stdout + r.stderr
	if r.code != code {
		t.Fatalf("exit %d, want %d\n%s", r.code, code, r)
	}
	for _, w := range want {
		if !strings.Contains(strings.ToLower(out), strings.ToLower(w)) {
			t.Errorf("output lacks %q\n%s", w, r)
		}
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(out, s) {
			t.Errorf("a secret appears in the output\n%s", r)
		}
	}
	if strings.Contains(out, "goroutine ") || strings.Contains(out, "panic") {
		t.Errorf("a stack trace\n%s", r)
	}
	if code != 0 {
		return
	}
	if r.summary == nil || len(r.summary.Cells) != 1 {
		t.Fatalf("no summary\n%s", r)
	}
	cell := r.summary.Cells[0]
	if cell.Sent == 0 || cell.Received != cell.Sent || cell.Ledger.Lost != 0 {
		t.Errorf("sent %d, received %d, lost %d", cell.Sent, cell.Received, cell.Ledger.Lost)
	}
}

// brokerSide is summary.json cells[].broker_side (README: summary.json).
type brokerSide struct {
	StepS  float64 `json:"step_s"`
	Points []struct {
		T             float64  `json:"t"`
		Backlog       *int64   `json:"backlog"`
		CPUPercent    *float64 `json:"cpu_percent"`
		MemoryBytes   *int64   `json:"memory_bytes"`
		ClientBacklog *int64   `json:"client_backlog"`
	} `json:"points"`
	BacklogMax     *int64   `json:"backlog_max"`
	CPUPercentMax  *float64 `json:"cpu_percent_max"`
	MemoryBytesMax *int64   `json:"memory_bytes_max"`
	Samples        uint64   `json:"samples"`
	Errors         uint64   `json:"errors"`
	FirstError     string   `json:"first_error"`
}

// timeline is a cell's messages sent and received per second (summary.json cells[].timeline).
type timeline struct {
	WarmupS   float64 `json:"warmup_s"`
	DurationS float64 `json:"duration_s"`
	DrainS    float64 `json:"drain_s"`
	StepS     float64 `json:"timeline_step_s"`
	Points    []struct {
		T        float64 `json:"t"`
		Sent     uint64  `json:"sent"`
		Received uint64  `json:"received"`
	} `json:"timeline"`
	// backS: when the killed broker was started again, in seconds since the cell's start (0:
	// not known); set by checkOutage.
	backS float64
}

func readTimeline(t *testing.T, r run) timeline {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.resultsDir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct{ Cells []timeline }
	if err := json.Unmarshal(b, &s); err != nil || len(s.Cells) == 0 {
		t.Fatalf("summary.json: %v, %d cells", err, len(s.Cells))
	}
	return s.Cells[0]
}

// cellElapsed watches progress lines ("mqbench c1 (1/1, 256B at 500/s) 3s/16s, …") and
// closes reached once the first cell has run want (warm-up included).
type cellElapsed struct {
	want    time.Duration
	reached chan struct{}
	buf     []byte
	done    bool
}

func (w *cellElapsed) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := string(w.buf[:i])
		w.buf = w.buf[i+1:]
		if m := progressElapsed.FindStringSubmatch(line); m != nil && !w.done {
			if d, err := time.ParseDuration(m[1]); err == nil && d >= w.want {
				w.done = true
				close(w.reached)
			}
		}
	}
	return len(p), nil
}

var progressElapsed = regexp.MustCompile(`^mqbench c1 \(1/\d+, [^)]*\) (\S+)/\S+, run`)

// noStackTrace: no Go or JavaScript stack trace in a run's output, whatever went wrong.
func noStackTrace(t *testing.T, r run) {
	t.Helper()
	for _, bad := range []string{"goroutine ", "\tat ", "panic:", "GoError"} {
		if strings.Contains(r.stderr, bad) || strings.Contains(r.stdout, bad) {
			t.Errorf("output contains %q:\n%s", bad, r)
		}
	}
}

// nonEmptyLines splits output into its lines that hold something.
func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// checkDist: the right number of samples, all positive, and under a generous bound (2 s) on
// loopback at a low rate.
func checkDist(t *testing.T, name string, s stats, count int64) {
	t.Helper()
	if s.Count != count {
		t.Errorf("%s: %d samples, want %d", name, s.Count, count)
	}
	if s.Min <= 0 || s.P["p50"] <= 0 || s.Max > 2e6 {
		t.Errorf("%s: min %.1fus p50 %.1fus max %.1fus: want 0 < latency < 2s", name, s.Min, s.P["p50"], s.Max)
	}
	for _, k := range []string{"p50", "p90", "p99", "p99_9", "p99_99", "p99_999", "p99_9999"} {
		if _, ok := s.P[k]; !ok {
			t.Errorf("%s: percentile %s missing", name, k)
		}
	}
	if s.P["p50"] > s.P["p99"] || s.P["p99"] > s.P["p99_9999"] || s.P["p99_9999"] > s.Max {
		t.Errorf("%s: percentiles not monotonic: %v max %v", name, s.P, s.Max)
	}
}
