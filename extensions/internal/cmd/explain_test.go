package cmd

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
)

// runExplain runs `explain ARGS` with its output in a buffer.
func runExplain(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	cmd := Explain(nil)
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

// An unknown broker is an invalid scenario (111), one line naming the valid ones.
func TestExplainUnknownBroker(t *testing.T) {
	cmd := Explain(nil)
	cmd.SetArgs([]string{"kafak"})
	cmd.SetOut(io.Discard)
	err := cmd.Execute()
	want := `mqbench explain: unknown broker "kafak" (valid: amqp10, kafka, mongodb, mqtt, nats, nsq, postgres, pulsar, rabbitmq, redis, rocketmq, sqs, zeromq)`
	if exitcode.Of(err) != exitcode.InvalidScenario || err.Error() != want {
		t.Errorf("got %v (exit %d), want exit %d with %q", err, exitcode.Of(err), exitcode.InvalidScenario, want)
	}
}
