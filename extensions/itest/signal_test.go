package itest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// SIGTERM during a run: k6's aborted exit code (105), and the results measured so far are
// written, with the interrupted cell and the one that never started marked as such.
func TestSIGTERMWritesResults(t *testing.T) {
	bin := k6Binary(t)
	root := repoRoot(t)
	results := t.TempDir()
	cmd := exec.Command(filepath.Join(root, "scripts", "run.sh"), "extensions/itest/testdata/signal-nats.yaml")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "MQBENCH_K6="+bin, "MQ_RESULTS="+results)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * time.Second)
	_ = cmd.Process.Signal(syscall.SIGTERM) // run.sh execs k6: this is k6's pid
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 105 {
		t.Fatalf("exit %v, want 105\n%s", err, out.String())
	}
	files, _ := filepath.Glob(filepath.Join(results, "signal-nats", "*", "summary.json"))
	if len(files) != 1 {
		t.Fatalf("summary.json not written\n%s", out.String())
	}
	b, _ := os.ReadFile(files[0])
	var s struct {
		Complete bool `json:"complete"`
		Cells    []struct {
			Status   string `json:"status"`
			Sent     uint64 `json:"sent"`
			Received uint64 `json:"received"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Complete || s.Cells[0].Status != "interrupted" || s.Cells[1].Status != "not started" {
		t.Errorf("complete=%v statuses %q %q", s.Complete, s.Cells[0].Status, s.Cells[1].Status)
	}
	if s.Cells[0].Sent < 300 || s.Cells[0].Received == 0 {
		t.Errorf("interrupted cell: sent %d received %d; want what was measured before the signal", s.Cells[0].Sent, s.Cells[0].Received)
	}
	if !bytes.Contains(out.Bytes(), []byte("result: ABORTED")) {
		t.Errorf("console summary does not say ABORTED:\n%s", out.String())
	}
}
