package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"go.k6.io/k6/v2/cmd/state"
)

// Issue 46 item 3: a pull request's job has no broker secrets, yet validate --no-env lints the
// scenario: an unset variable is no error and a field whose value comes from one is not
// judged (its url scheme), while everything else, a written default included, still is.
func TestValidateNoEnv(t *testing.T) {
	dir := t.TempDir()
	write := func(name, url, dest string) string {
		file := filepath.Join(dir, name+".yaml")
		body := "name: " + name + "\nbroker: { type: kafka, url: '" + url + "' }\n" +
			"workload: { destination: '" + dest + "', duration: 1s }\nmatrix: [{ size: 64B, rate: 10 }]\n"
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	secretless := write("secretless", "${MQB_T_NOENV_URL}", "d")
	required := write("required", "${MQB_T_NOENV_URL:?the CI sets it}", "d")
	badDefault := write("baddefault", "${MQB_T_NOENV_URL:-ftp://h:1}", "d")
	noBraces := write("nobraces", "${MQB_T_NOENV_URL}", "$MQB_T_NOENV_STAGE")
	sasl := filepath.Join(dir, "sasl.yaml")
	if err := os.WriteFile(sasl, []byte("name: sasl\nbroker:\n  type: kafka\n  url: kafka://${MQB_T_HOST:-127.0.0.1}:9092\n"+
		"  kafka: { security: { sasl: { mechanism: PLAIN, username_env: MQB_T_KAFKA_USER, password_env: MQB_T_KAFKA_PASSWORD } } }\n"+
		"workload: { destination: 'orders-${MQB_T_STAGE}', duration: 1s }\nmatrix: [{ size: 64B, rate: 10 }]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
		stdout string // exactly, when set
	}{
		{name: "unset is an error without --no-env", args: []string{secretless}, code: exitcode.InvalidScenario, stderr: "MQB_T_NOENV_URL is not set"},
		{name: "--no-env", args: []string{"--no-env", secretless, required}},
		{name: "--no-env checks a default", args: []string{"--no-env", badDefault}, code: exitcode.InvalidScenario, stderr: "broker.url: url scheme"},
		{name: "--no-env checks the syntax", args: []string{"--no-env", noBraces}, code: exitcode.InvalidScenario, stderr: "workload.destination: $MQB_T_NOENV_STAGE is not expanded"},
		// What a CI job must pass into a container: every ${NAME} and *_env option, once, sorted.
		{name: "--list-env", args: []string{"--list-env", sasl, secretless}, stdout: "MQB_T_HOST\nMQB_T_KAFKA_PASSWORD\nMQB_T_KAFKA_USER\nMQB_T_NOENV_URL\nMQB_T_STAGE\n"},
		{name: "--list-env refuses an invalid file", args: []string{"--list-env", noBraces}, code: exitcode.InvalidScenario, stderr: "$MQB_T_NOENV_STAGE is not expanded", stdout: "\x00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gs := state.NewGlobalState(context.Background())
			var stdout, stderr bytes.Buffer
			gs.Stdout.Writer, gs.Stderr.Writer = &stdout, &stderr
			code := 0
			gs.OSExit = func(c int) { code = c }
			root := New(gs)
			root.SetArgs(append([]string{"validate"}, tc.args...))
			_ = root.Execute()
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("exit %d, stderr %q; want exit %d, stderr with %q", code, stderr.String(), tc.code, tc.stderr)
			}
			if want := strings.TrimPrefix(tc.stdout, "\x00"); tc.stdout != "" && stdout.String() != want {
				t.Errorf("stdout %q, want %q", stdout.String(), want)
			}
		})
	}
}
