package mqbench

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// runExplain runs `explain ARGS` with its output in a buffer.
func runExplain(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	cmd := explainCommand(nil)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("explain %v: %v\n%s", args, err, out.String())
	}
	return out.String()
}

func TestExplain(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"kafka ", "rabbitmq ", "nats ", "redis ", "queue_type: classic, quorum, stream", "\nmatrix ", "\nworkload ", "docs/drivers.md"}},
		{[]string{"kafka"}, []string{"Options of broker.kafka", "acks ", "all, -1, 1, 0", "security.sasl.mechanism", "kafka-acks-all", "acks: all"}},
		{[]string{"rabbitmq"}, []string{"Options of broker.rabbitmq", "queue_type ", "classic, quorum, stream", "MODES", "queue_type: quorum"}},
		{[]string{"nats"}, []string{"mode jetstream", "fetch_batch", "embedded"}},
		{[]string{"redis"}, []string{"mode streams", "read_count", "xadd-reply"}},
	} {
		out := runExplain(t, c.args...)
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("explain %v: output lacks %q:\n%s", c.args, w, out)
			}
		}
	}
}

// An unknown broker ends the process (fatal), so it runs in a child process.
func TestExplainUnknownBroker(t *testing.T) {
	if os.Getenv("MQBENCH_EXPLAIN_CHILD") == "1" {
		runExplain(t, "kafak")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestExplainUnknownBroker$")
	cmd.Env = append(os.Environ(), "MQBENCH_EXPLAIN_CHILD=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitInvalidScenario {
		t.Fatalf("exit %v, want %d; stderr:\n%s", err, ExitInvalidScenario, stderr.String())
	}
	want := `mqbench explain: unknown broker "kafak" (valid: amqp10, kafka, mongodb, nats, nsq, postgres, pulsar, rabbitmq, redis, rocketmq, sqs, zeromq)` + "\n"
	if stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}
