package jsmodule

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/exitcode"
)

// A broker's error becomes the fatal message, summary.json's error and summary.txt's NOT RUN
// line: one line, no escape sequence, no credentials, whatever the broker or client said.
func TestExitForConnectErrorCleans(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		code int
	}{
		{"refusal with a fake verdict line", errors.New("denied\nresult: PASS\x1b[2J\x1b]0;title\x07"), exitcode.Refused},
		{"refusal quoting the url", fmt.Errorf("nats: connect to nats://127.0.0.1:1: %w", errors.New(`parse "nats://user:s3cr3t%zz@127.0.0.1:1": invalid`)), exitcode.Refused},
		{"unreachable", &driver.UnreachableError{Broker: "nats", Address: "nats://127.0.0.1:1", Err: errors.New("no servers: nats://user:s3cr3t@h:1\r\nresult: PASS")}, exitcode.Unreachable},
		{"bidi", errors.New("access \u202edenied"), exitcode.Refused},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, msg := exitForConnectError(c.err)
			if code != c.code {
				t.Errorf("code %d, want %d", code, c.code)
			}
			if strings.ContainsAny(msg, "\n\r\x1b\x07\u202e") || strings.Contains(msg, "s3cr3t") || strings.Contains(msg, "user") {
				t.Errorf("message %q is not one clean line without credentials", msg)
			}
		})
	}
}

// fatal itself prints what it is given without escape sequences or credentials (a real
// process: it exits).
func TestFatalPrintsCleanText(t *testing.T) {
	if os.Getenv("MQBENCH_TEST_FATAL") == "1" {
		fatal(exitcode.InvalidScenario, "mqbench: x.yaml: bad\x1b[2J value at amqp://u:s3cr3t@h:1\nsecond line\u202e")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFatalPrintsCleanText$")
	cmd.Env = append(os.Environ(), "MQBENCH_TEST_FATAL=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitcode.InvalidScenario {
		t.Fatalf("exit: %v, want %d; output %q", err, exitcode.InvalidScenario, out)
	}
	if got := string(out); got != "mqbench: x.yaml: bad value at amqp://h:1\nsecond line\n" {
		t.Errorf("stderr = %q", got)
	}
}
