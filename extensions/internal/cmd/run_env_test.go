package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/handover"
)

// Issue 46 item 3: `run s.yaml -e KAFKA_URL=…` (k6's flag, also --env) flows into
// ${KAFKA_URL}, for run's early validation and for the in-process load (the scenario run
// hands over); -e without = is a usage error (exit 2).
func TestRunEnvFlagFlowsIntoScenario(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "envrun.yaml")
	body := "name: envrun\nbroker: { type: kafka, url: '${MQB_T_RUN_URL}' }\n" +
		"workload: { destination: d, duration: 1s }\nmatrix: [{ size: 64B, rate: 10 }]\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int    // 0: k6 run was reached
		loaded string // the url the in-process load got
		stderr string
	}{
		{name: "-e", args: []string{"-e", "MQB_T_RUN_URL=kafka://10.1.2.3:9092"}, loaded: "kafka://10.1.2.3:9092"},
		{name: "--env", args: []string{"--env", "MQB_T_RUN_URL=kafka://10.1.2.4:9092"}, loaded: "kafka://10.1.2.4:9092"},
		{name: "--env=", args: []string{"--env=MQB_T_RUN_URL=kafka://10.1.2.5:9092"}, loaded: "kafka://10.1.2.5:9092"},
		{name: "unset", args: nil, code: exitcode.InvalidScenario, stderr: "MQB_T_RUN_URL is not set"},
		{name: "no =", args: []string{"-e", "MQB_T_RUN_URL"}, code: exitcode.Usage, stderr: "mqbench run: -e MQB_T_RUN_URL: give NAME=VALUE (a variable already set in the environment needs no -e)"},
		{name: "--env no =", args: []string{"--env=MQB_T_RUN_URL"}, code: exitcode.Usage, stderr: "mqbench run: -e MQB_T_RUN_URL: give NAME=VALUE"},
		{name: "no name", args: []string{"-e", "=kafka://10.1.2.6:9092"}, code: exitcode.Usage, stderr: "mqbench run: -e =kafka://10.1.2.6:9092: the variable's name is missing: give NAME=VALUE"},
		{name: "bad name", args: []string{"-e", "1X=y"}, code: exitcode.Usage, stderr: "mqbench run: -e 1X: a variable name is letters, digits and _"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("MQB_T_RUN_URL", "")
			os.Unsetenv("MQB_T_RUN_URL") // restored by t.Setenv's cleanup
			t.Setenv("MQ_RESULTS", "")
			loaded := ""
			load := func(h *handover.Run) error { loaded = h.Scenario.Broker.URL; return nil }
			code, stderr := runStub(t, load, append([]string{"run", file, "--results", t.TempDir()}, tc.args...)...)
			if code != tc.code || loaded != tc.loaded || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, load got %q, stderr %q; want exit %d, %q, stderr with %q", code, loaded, stderr, tc.code, tc.loaded, tc.stderr)
			}
		})
	}
}
