package itest

import (
	"cmp"
	"os"
	"strings"
	"testing"
)

// Credentials that the broker refuses: exit 113 ("broker refused", not 112 "unreachable"),
// exactly one stderr line that names the broker and says authentication failed, no stack
// trace, no results (nothing was measured), and the password appears nowhere in the output.
// RabbitMQ: the shared broker at 127.0.0.1:5672, password from password_env. Kafka: the shared
// broker's SASL listener (scripts/brokers/kafka.sh: 127.0.0.1:9094, test user mqbench; another
// listener with MQBENCH_KAFKA_SASL_URL), PLAIN and SCRAM-SHA-512.
func TestWrongCredentialsExit113(t *testing.T) {
	k6Binary(t)
	const secret = "wrong-pw-hunter2-never-printed"
	kafkaSASL := cmp.Or(os.Getenv("MQBENCH_KAFKA_SASL_URL"), "kafka://127.0.0.1:9094")
	cases := []struct {
		scenario, broker, user string
		env                    map[string]string
		hint                   string // what to check when the broker is not there
	}{
		{"creds-rabbitmq", "rabbitmq", "guest",
			map[string]string{"MQB_ITEST_RABBITMQ_PASSWORD": secret},
			"scripts/brokers/start.sh rabbitmq"},
		{"creds-kafka-plain", "kafka", "mqbench",
			map[string]string{"MQB_ITEST_KAFKA_SASL_URL": kafkaSASL, "MQB_ITEST_KAFKA_USER": "mqbench", "MQB_ITEST_KAFKA_PASSWORD": secret},
			"scripts/brokers/start.sh kafka (a Kafka started before its SASL listener existed: stop.sh kafka first)"},
		{"creds-kafka-scram", "kafka", "mqbench",
			map[string]string{"MQB_ITEST_KAFKA_SASL_URL": kafkaSASL, "MQB_ITEST_KAFKA_USER": "mqbench", "MQB_ITEST_KAFKA_PASSWORD": secret},
			"scripts/brokers/start.sh kafka (a Kafka started before its SASL listener existed: stop.sh kafka first)"},
	}
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			r := runScenario(t, "extensions/itest/testdata/"+c.scenario+".yaml")
			if strings.Contains(r.stdout+r.stderr, secret) {
				t.Errorf("the password was printed:\n%s", r)
			}
			if r.code == 112 {
				t.Fatalf("exit 112: the %s broker is not reachable; start it: %s\n%s", c.broker, c.hint, r)
			}
			if r.code != 113 {
				t.Fatalf("exit %d, want 113\n%s", r.code, r)
			}
			lines := nonEmptyLines(r.stderr)
			if len(lines) != 1 {
				t.Fatalf("want exactly one line on stderr, got %d:\n%s", len(lines), r.stderr)
			}
			t.Logf("stderr: %s", lines[0])
			for _, want := range []string{"broker refused", c.broker, "authentication failed", `"` + c.user + `"`} {
				if !strings.Contains(lines[0], want) {
					t.Errorf("the error does not say %q: %s", want, lines[0])
				}
			}
			noStackTrace(t, r)
			if r.resultsDir != "" {
				t.Errorf("results written for a run that never started: %s", r.resultsDir)
			}
		})
	}
}
