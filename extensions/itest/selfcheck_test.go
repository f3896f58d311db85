package itest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/cmd"
	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/selfcheck"
	"go.k6.io/k6/v2/cmd/state"
)

// The self-check can fail: told to expect a 2 ms delay the proxy does not inject, it runs
// bin/k6 for real, finds no shift, and the command says FAIL with the numbers and returns
// exit 116; everything else it checks (nothing lost) still passes, so the failure is the
// missing delay and nothing else. (make test runs the passing self-check itself.)
func TestSelfcheckFailsWhenItsDelayIsMissing(t *testing.T) {
	none := time.Duration(0)
	root := t.TempDir()
	gs := state.NewGlobalState(context.Background())
	var stdout, stderr bytes.Buffer
	gs.Stdout.Writer, gs.Stderr.Writer = &stdout, &stderr
	err := cmd.RunSelfcheck(gs, selfcheck.Options{K6: k6Binary(t), Root: root, Stall: -1, ProxyDelay: &none})
	if got := exitcode.Of(err); got != exitcode.SelfcheckFailed {
		t.Fatalf("exit %d (%v), want %d\nstdout:\n%s\nstderr:\n%s", got, err, exitcode.SelfcheckFailed, &stdout, &stderr)
	}
	if !strings.Contains(err.Error(), "did not report the injected faults") {
		t.Errorf("message %q does not say what failed", err)
	}
	out := stdout.String()
	if !strings.Contains(out, "FAIL  delay: e2e p1 shift") || !strings.Contains(out, "PASS  delay: received − sent") ||
		!strings.Contains(out, "selfcheck FAILED: 1 of 2 checks") {
		t.Errorf("report does not fail the delay alone:\n%s", out)
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "selfcheck", "*", "selfcheck.json"))
	if len(dirs) != 1 {
		t.Fatalf("selfcheck.json: found %v", dirs)
	}
	b, err := os.ReadFile(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	var res selfcheck.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Pass || len(res.Checks) != 2 || res.Checks[0].Pass || res.Checks[0].Expected != 2 {
		t.Fatalf("selfcheck.json: %+v", res)
	}
	// No delay injected: the shift measured is run-to-run noise, below the range (not a
	// delay found too large), and the proxy says it held nothing more.
	if c := res.Checks[0]; c.Measured >= c.Lo || !strings.Contains(c.Why, "the proxy held what was published 0s") {
		t.Errorf("shift %v ms without a delay, range %v…%v (%s)", c.Measured, c.Lo, c.Hi, c.Why)
	}
	for _, run := range []string{"baseline", "delayed"} {
		if _, err := os.Stat(filepath.Join(res.Runs[run], "summary.json")); err != nil {
			t.Errorf("run %s: %v", run, err)
		}
	}
}
