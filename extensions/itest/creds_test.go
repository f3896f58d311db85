package itest

import (
	"cmp"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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
			// A refused run still leaves its results folder (a pipeline finds summary.json
			// whatever the outcome): not complete, the refusal as its error, no password.
			switch {
			case r.summary == nil:
				t.Errorf("no summary.json for the refused run")
			case r.summary.Complete || !strings.Contains(r.summary.Error, "authentication failed"):
				t.Errorf("summary.json: complete %v, error %q; want not complete, naming the refusal", r.summary.Complete, r.summary.Error)
			case strings.Contains(r.summary.Error, secret):
				t.Errorf("summary.json's error holds the password: %q", r.summary.Error)
			}
		})
	}
}

// Credentials that work: the run succeeds, and the password is nowhere a user or a tool can
// see it: stdout, stderr (logs), any file of the results folder, or any k6 sample (tags go to
// InfluxDB and JSON outputs). Redis with the password in the url (and a query parameter),
// Kafka with SASL credentials from the environment.
func TestCredentialsReachNoOutput(t *testing.T) {
	k6Binary(t)
	kafkaSASL := cmp.Or(os.Getenv("MQBENCH_KAFKA_SASL_URL"), "kafka://127.0.0.1:9094")
	for _, c := range []struct {
		scenario, secret string
		env              map[string]string
		setup            func(t *testing.T, secret string)
	}{
		{"creds-ok-redis", "redis-pw-hunter2-xyz", map[string]string{}, func(t *testing.T, secret string) {
			startPrivate(t, "redis", "REDIS_PORT=16381")
			if out, err := exec.Command("redis-cli", "-p", "16381", "config", "set", "requirepass", secret).CombinedOutput(); err != nil {
				t.Fatalf("requirepass: %v %s", err, out)
			}
			t.Setenv("MQB_ITEST_SECRET", secret)
		}},
		{"creds-ok-kafka", cmp.Or(os.Getenv("MQBENCH_KAFKA_SASL_PASSWORD"), "mqbench-secret"), map[string]string{
			"MQB_ITEST_KAFKA_SASL_URL": kafkaSASL, "MQB_ITEST_KAFKA_USER": cmp.Or(os.Getenv("MQBENCH_KAFKA_SASL_USER"), "mqbench"),
		}, func(t *testing.T, secret string) { t.Setenv("MQB_ITEST_KAFKA_PASSWORD", secret) }},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			c.setup(t, c.secret)
			samples := filepath.Join(t.TempDir(), "samples.json")
			r := runScenario(t, "extensions/itest/testdata/"+c.scenario+".yaml", "--out", "json="+samples)
			if r.code != 0 || r.summary == nil || r.summary.Cells[0].Received == 0 {
				t.Fatalf("exit %d, want a passing run that received messages\n%s", r.code, r)
			}
			where := map[string][]byte{"stdout": []byte(r.stdout), "stderr": []byte(r.stderr)}
			if b, err := os.ReadFile(samples); err == nil {
				where["k6 samples (--out json)"] = b
			} else {
				t.Fatal(err)
			}
			_ = filepath.WalkDir(r.resultsDir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					b, _ := os.ReadFile(p)
					where[p] = b
				}
				return nil
			})
			if len(where) < 8 {
				t.Errorf("only %d outputs looked at; the results folder should hold summary, report, junit and distributions", len(where))
			}
			for name, b := range where {
				if strings.Contains(string(b), c.secret) {
					t.Errorf("the password appears in %s", name)
				}
			}
			if u := r.summary.Broker.URL; strings.Contains(u, "@") {
				t.Errorf("summary.json broker url %q keeps user info", u)
			}
		})
	}
}
