package itest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Plain `k6 run lib/mqbench.js` (k6's own command, as the k6-operator runs it) gives the
// scenario's ${NAME} the value of k6's -e NAME=VALUE, as `k6 x mqbench run` does: the variable
// is not in the process's environment at all here.
func TestPlainK6RunTakesEnvFlags(t *testing.T) {
	bin := k6Binary(t)
	dir := t.TempDir()
	scenario := runCmdFile(t, dir, "plainenv", `"${MQB_ITEST_PLAIN_URL}"`, "p(99) < 500ms", "")
	results := filepath.Join(dir, "results")
	cmd := exec.Command(bin, "run", "--quiet", "-e", "MQ_SCENARIO="+scenario, "-e", "MQB_ITEST_PLAIN_URL=embedded",
		filepath.Join(repoRoot(t), "lib", "mqbench.js"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MQ_RESULTS="+results, "K6_NO_USAGE_REPORT=true")
	r := execRun(t, cmd)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0 (the -e value fills ${MQB_ITEST_PLAIN_URL})\n%s", r.code, r)
	}
	c := readSummary(t, results, "plainenv").Cells[0]
	if c.Sent == 0 || c.Received != c.Sent {
		t.Errorf("sent %d received %d, want received == sent > 0", c.Sent, c.Received)
	}
}
