package itest

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Issue 45 item 6: the CI template's script tells a runner that could not keep the schedule
// (exit 117) from a breached SLA (99) in its own words, repeats the plain line naming the cell
// and the fix, and the job's junit.xml carries it as the failure's message. One VU at
// 100,000 msg/s (testdata/validity-drops.yaml, embedded NATS) drops ticks on any machine.
func TestCIScriptSaysTheRunnerFellBehind(t *testing.T) {
	bin := k6Binary(t)
	dir := t.TempDir()
	scenario := filepath.Join(repoRoot(t), "extensions", "itest", "testdata", "validity-drops.yaml")
	cmd := exec.Command("sh", filepath.Join(repoRoot(t), "examples", "ci", "service", "perf", "mqbench-ci.sh"))
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MQBENCH_K6=" + bin, "MQBENCH_SCENARIO=" + scenario}
	r := execRun(t, cmd)
	if r.code != 117 {
		t.Fatalf("exit %d, want 117\n%s", r.code, r)
	}
	plain := `c1: mqbench could not start [0-9,]+ of 200,000 sends on time \(the load generator fell behind, [^)]*\): this is not the broker\. Use a bigger runner`
	lines := nonEmptyLines(r.stderr)
	n := len(lines)
	if n < 2 || !regexp.MustCompile(`^mqbench-ci: failed: `+plain).MatchString(lines[n-2]) ||
		!strings.HasPrefix(lines[n-1], "mqbench-ci: "+scenario+": exit 117, INVALID: this runner could not send on schedule") ||
		!strings.Contains(lines[n-1], "no SLA threshold was breached") {
		t.Errorf("the script's last lines do not say the runner fell behind, with the cell's plain line:\n%s", r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "mqbench-junit.xml"))
	if err != nil {
		t.Fatalf("no junit.xml where the CI reads it: %v", err)
	}
	var rep junitReport
	if err := xml.Unmarshal(b, &rep); err != nil {
		t.Fatalf("junit.xml does not parse: %v\n%s", err, b)
	}
	found := false
	for _, s := range rep.Suites {
		for _, c := range s.Cases {
			if f := c.Failure; f != nil && f.Type == "generator" && regexp.MustCompile(`^`+plain).MatchString(f.Message) {
				found = true
			}
		}
	}
	if rep.Failures != 1 || !found {
		t.Errorf("junit.xml: want one failure, the generator's, in plain words:\n%s", b)
	}
}
