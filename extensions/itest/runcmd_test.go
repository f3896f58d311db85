package itest

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A scenario as a user writes it in their own repository: the run command needs nothing but
// the binary and this file (the entry script is embedded).
const runCmdScenario = `name: %NAME%
broker: { type: nats, url: %URL% }
workload:
  destination: itest.runcmd.%NAME%
  payload: %PAYLOAD%
  warmup: 1s
  duration: 2s
  drain: 1s
matrix:
  - { size: 256B, rate: 200 }
thresholds:
  mq_e2e_latency: ["%LIMIT%"]
  mq_messages_lost: ["count == 0"]
`

func runCmdFile(t *testing.T, dir, name, url, limit, payload string) string {
	t.Helper()
	if payload == "" {
		payload = "{ content: random }"
	}
	text := strings.NewReplacer("%NAME%", name, "%URL%", url, "%LIMIT%", limit, "%PAYLOAD%", payload).Replace(runCmdScenario)
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// emptyFolderWithBinary copies the k6 binary into an empty temp folder: no lib/, no
// scenarios/, no scripts/ beside it, as in a service's own repository.
func emptyFolderWithBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src, err := os.Open(k6Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(filepath.Join(dir, "k6"), os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runIn runs ./k6 x mqbench run ARGS in dir and returns the exit code and output.
func runIn(t *testing.T, dir string, args ...string) run {
	t.Helper()
	cmd := exec.Command("./k6", append([]string{"x", "mqbench", "run"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MQ_RESULTS=") // the default: ./results
	return execRun(t, cmd)
}

// readSummary reads the one summary.json under root/<name>/<ts>/.
func readSummary(t *testing.T, root, name string) *summary {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(root, name, "*", "summary.json"))
	if len(matches) != 1 {
		t.Fatalf("want one %s/%s/<ts>/summary.json, found %v", root, name, matches)
	}
	b, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	s := &summary{}
	if err := json.Unmarshal(b, s); err != nil {
		t.Fatalf("summary.json does not parse: %v\n%s", err, b)
	}
	return s
}

// From an empty folder holding only the binary and a scenario: 0 when the thresholds hold,
// 99 when one fails, 112 when the broker is unreachable; summary.json in ./results each time.
func TestRunCommandFromAnEmptyFolder(t *testing.T) {
	dir := emptyFolderWithBinary(t)
	for _, tc := range []struct {
		name, url, limit string
		code             int
		stderr           string
	}{
		{"pass", "nats://127.0.0.1:4222", "p(99) < 500ms", 0, ""},
		{"breach", "nats://127.0.0.1:4222", "p(50) < 1us", 99, "mqbench: 1 of 3 thresholds failed:\n  mq_e2e_latency{cell:c1} p(50) < 1us: measured "},
		{"embedded", "embedded", "p(99) < 500ms", 0, ""},
		{"unreachable", "nats://127.0.0.1:1", "p(99) < 500ms", 112, "nats broker unreachable at nats://127.0.0.1:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runCmdFile(t, dir, tc.name, tc.url, tc.limit, "")
			r := runIn(t, dir, tc.name+".yaml")
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tc.code, r)
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr does not say %q:\n%s", tc.stderr, r)
			}
			noStackTrace(t, r)
			if strings.Contains(r.stderr, "mq_threshold_failed") || strings.Contains(r.stdout, "mq_threshold_failed") {
				t.Errorf("an internal metric name reached the console:\n%s", r)
			}
			s := readSummary(t, filepath.Join(dir, "results"), tc.name)
			c := s.Cells[0]
			switch tc.code {
			case 0, 99:
				if c.Sent == 0 || c.Received != c.Sent || c.Ledger.Lost != 0 {
					t.Errorf("sent %d received %d lost %d, want received == sent > 0", c.Sent, c.Received, c.Ledger.Lost)
				}
				if s.ThresholdsOK != (tc.code == 0) {
					t.Errorf("thresholds_ok %v with exit %d", s.ThresholdsOK, tc.code)
				}
			case 112:
				if c.Sent != 0 || s.ThresholdsOK {
					t.Errorf("unreachable run: sent %d, thresholds_ok %v", c.Sent, s.ThresholdsOK)
				}
			}
		})
	}
}

// Bad input to the run command: one line naming the path, a documented exit code, no stack
// trace, nothing started.
func TestRunCommandBadInput(t *testing.T) {
	dir := emptyFolderWithBinary(t)
	good := runCmdFile(t, dir, "good", "embedded", "p(99) < 500ms", "")
	readOnly := filepath.Join(dir, "ro")
	if err := os.WriteFile(readOnly, []byte("a file, not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no file", nil, 2, "mqbench run: name a scenario file: k6 x mqbench run FILE [k6 run flags]"},
		{"missing file", []string{"nope.yaml"}, 111, "mqbench run: scenario file not found: nope.yaml"},
		{"a folder", []string{"."}, 111, "mqbench run: . is a folder, not a scenario file"},
		{"two files", []string{"good.yaml", "nope.yaml"}, 2, "mqbench run: one scenario file per run; got good.yaml, nope.yaml"},
		{"results under a file", []string{"good.yaml", "--results", "ro/results"}, 115, "mqbench run: results folder ro/results cannot be created: not a directory"},
		{"unknown flag", []string{"good.yaml", "--no-such-flag"}, 2, "mqbench run: unknown flag: --no-such-flag"},
		{"invalid scenario", []string{writeBad(t, dir)}, 111, "bad.yaml:3:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runIn(t, dir, tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tc.code, r)
			}
			if !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("stderr does not say %q:\n%s", tc.msg, r)
			}
			noStackTrace(t, r)
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "results", "good")); err == nil {
		t.Errorf("a refused command line still ran %s", good)
	}
}

func writeBad(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(p, []byte("name: bad\nbroker: { type: nats, url: embedded }\nworkload: { destination: d, duration: -2s }\nmatrix: [{ size: 256B, rate: 100 }]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return "bad.yaml"
}

// --results DIR wins over MQ_RESULTS and ./results; a payload file is read relative to the
// scenario file, not the working directory; k6 run flags pass through (--summary-export).
func TestRunCommandResultsFolderAndRelativePayload(t *testing.T) {
	dir := emptyFolderWithBinary(t)
	scenarios := filepath.Join(dir, "perf")
	if err := os.MkdirAll(scenarios, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(scenarios, "order.json"), []byte(`{"order": 42, "items": ["a", "b"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	runCmdFile(t, scenarios, "payload", "embedded", "p(99) < 500ms", "{ content: file, file: order.json }")
	r := runIn(t, dir, "perf/payload.yaml", "--results", "out", "--summary-export", "k6-summary.json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	s := readSummary(t, filepath.Join(dir, "out"), "payload")
	if c := s.Cells[0]; c.Sent == 0 || c.Received != c.Sent {
		t.Errorf("sent %d received %d", c.Sent, c.Received)
	}
	if _, err := os.Stat(filepath.Join(dir, "results")); err == nil {
		t.Error("--results out, but ./results was written too")
	}
	if _, err := os.Stat(filepath.Join(dir, "k6-summary.json")); err != nil {
		t.Errorf("--summary-export did not reach k6 run: %v", err)
	}
}
