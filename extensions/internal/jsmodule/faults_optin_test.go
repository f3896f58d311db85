package jsmodule

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mqbench/xk6-mqbench/internal/driver/all" // the scenario names a broker type
	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// loadEnv makes this test binary, run again as a child, load that scenario the way k6 does
// and exit 0 when the load accepted it (a refusal exits through fatal).
const loadEnv = "MQBENCH_TEST_LOAD_SCENARIO"

// Loading a scenario whose faults run commands ends the process with 111 before anything
// connects, unless MQ_ALLOW_FAULT_COMMANDS=1 (what run's --allow-fault-commands sets): the
// load is the one place every run (k6 run, run, a pod) goes through (finding 1).
func TestLoadRefusesFaultCommandsWithoutOptIn(t *testing.T) {
	if p := os.Getenv(loadEnv); p != "" {
		New().load(p, scenario.Vars{})
		os.Exit(0)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "x.yaml")
	pwned := filepath.Join(dir, "pwned")
	body := "name: x\nbroker: { type: nats, url: \"nats://127.0.0.1:1\" }\n" +
		"workload: { destination: x, duration: 10s }\nmatrix: [{ size: 100B, rate: 10 }]\n" +
		"faults:\n  kill: \"/bin/sh -c id>" + pwned + "\"\n  schedule: [{ at: 1s, node: n1 }]\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		allow string
		code  int
	}{{"", exitcode.InvalidScenario}, {"0", exitcode.InvalidScenario}, {"1", 0}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLoadRefusesFaultCommandsWithoutOptIn$")
		cmd.Env = append(os.Environ(), loadEnv+"="+file, "MQ_RESULTS="+dir, "MQ_ALLOW_FAULT_COMMANDS="+tc.allow)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code {
			t.Errorf("MQ_ALLOW_FAULT_COMMANDS=%q: exit %d, want %d; stderr %q", tc.allow, code, tc.code, stderr.String())
		}
		if want := file + ": faults:"; tc.code != 0 && (!strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), "--allow-fault-commands")) {
			t.Errorf("MQ_ALLOW_FAULT_COMMANDS=%q: stderr %q does not name %q and the flag", tc.allow, stderr.String(), want)
		}
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("loading the scenario ran its kill command")
	}
}
