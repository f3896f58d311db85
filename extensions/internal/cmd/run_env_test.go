package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

// k6Root is a k6 root holding `x mqbench` and a `run` with k6 run's flags that mqbench run
// sets (k6's own run command is internal to k6). Its run loads the scenario named by -e
// MQ_SCENARIO as the JS module's load does (scenario.Load, the process environment) and
// records the broker url it got, or the load's error.
func k6Root(gs *state.GlobalState, loaded *string) *cobra.Command {
	root := &cobra.Command{Use: "k6", SilenceErrors: true, SilenceUsage: true}
	k6run := &cobra.Command{Use: "run", RunE: func(c *cobra.Command, _ []string) error {
		envs, _ := c.Flags().GetStringArray("env")
		for _, kv := range envs {
			if file, ok := strings.CutPrefix(kv, "MQ_SCENARIO="); ok {
				sc, err := scenario.Load(file)
				if err != nil {
					*loaded = "error: " + err.Error()
					return nil
				}
				*loaded = sc.Broker.URL
			}
		}
		return nil
	}}
	k6run.Flags().StringArrayP("env", "e", nil, "")
	k6run.Flags().String("address", "", "")
	k6run.Flags().BoolP("quiet", "q", false, "")
	x := &cobra.Command{Use: "x"}
	x.AddCommand(New(gs))
	root.AddCommand(k6run, x)
	return root
}

// Issue 46 item 3: `run s.yaml -e KAFKA_URL=…` (k6's flag, also --env) flows into
// ${KAFKA_URL}, for run's early validation and for the in-process load; -e without = is a
// usage error (exit 2).
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
			gs := state.NewGlobalState(context.Background())
			var stderr bytes.Buffer
			gs.Stderr.Writer, gs.Stdout.Writer = &stderr, io.Discard
			code := 0
			gs.OSExit = func(c int) { code = c }
			loaded := ""
			root := k6Root(gs, &loaded)
			root.SetArgs(append([]string{"x", "mqbench", "run", file, "--results", t.TempDir()}, tc.args...))
			if err := root.Execute(); err != nil {
				t.Fatalf("Execute: %v", err)
			}
			if code != tc.code || loaded != tc.loaded || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("exit %d, load got %q, stderr %q; want exit %d, %q, stderr with %q", code, loaded, stderr.String(), tc.code, tc.loaded, tc.stderr)
			}
		})
	}
}
