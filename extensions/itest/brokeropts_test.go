package itest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The broker scripts' options for the studies (docs/reproductions.md) must reach the broker,
// not just a file: each private instance is started with and without them and asked through
// the broker's own interface (NATS /varz, rabbitmqctl eval). Without the option the broker's
// default must show, so a check that read nothing could not pass.
func TestBrokerScriptOptionsReachBroker(t *testing.T) {
	k6Binary(t)
	waitTurn(t, 45*time.Second) // broker starts only: in the waiting tier
	// Ports no other test of the tier uses (the RabbitMQ one derives its Erlang distribution
	// port, AMQP + 20000).
	natsPorts := []string{"NATS_PORT=14242", "NATS_MONITOR_PORT=18242"}
	rabbitPorts := []string{"RABBITMQ_PORT=15683", "RABBITMQ_MGMT_PORT=15684", "RABBITMQ_PROMETHEUS_PORT=15695"}
	cases := []struct {
		name, broker string
		env          []string
		// asks and wants: what to ask the broker and the answer it must give.
		asks, wants []string
	}{
		{"nats default fsync", "nats", natsPorts, []string{"sync_always"}, []string{"false"}},
		{"nats sync always", "nats", append([]string{"NATS_SYNC_ALWAYS=1"}, natsPorts...),
			[]string{"sync_always"}, []string{"true"}},
		{"rabbitmq defaults", "rabbitmq", rabbitPorts,
			[]string{"application:get_env(rabbit, credit_flow_default_credit).", "application:get_env(rabbitmq_management_agent, disable_metrics_collector)."},
			// the collector setting is unset by default (undefined): the collector runs
			[]string{"{ok,{400,200}}", "undefined"}},
		{"rabbitmq study tuning", "rabbitmq", append([]string{"RABBITMQ_CREDIT_FLOW=5000,2500", "RABBITMQ_METRICS_COLLECTOR=off", "RABBITMQ_EMULATOR_FLAGS=+S 1:1"}, rabbitPorts...),
			[]string{"application:get_env(rabbit, credit_flow_default_credit).", "application:get_env(rabbitmq_management_agent, disable_metrics_collector).", "erlang:system_info(schedulers)."},
			[]string{"{ok,{5000,2500}}", "{ok,true}", "1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := startPrivate(t, c.broker, c.env...)
			for i, ask := range c.asks {
				var got string
				if c.broker == "nats" {
					got = natsJetStreamConfig(t, "http://127.0.0.1:18242/varz", ask)
				} else {
					got = b.rabbitmqEval(ask)
				}
				if got != c.wants[i] {
					t.Errorf("%s: got %s, want %s", ask, got, c.wants[i])
				}
			}
		})
	}
}

// natsJetStreamConfig reads one field of the server's JetStream configuration from /varz
// ("false" for a boolean the server leaves out, as it does when it is off).
func natsJetStreamConfig(t *testing.T, url, field string) string {
	t.Helper()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct {
		JetStream struct {
			Config map[string]any `json:"config"`
		} `json:"jetstream"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	if v.JetStream.Config == nil {
		t.Fatalf("%s: no jetstream.config (JetStream off?)", url)
	}
	got, ok := v.JetStream.Config[field]
	if !ok {
		return "false"
	}
	b, _ := json.Marshal(got)
	return string(b)
}

// rabbitmqEval evaluates an Erlang expression on the private node through rabbitmqctl (the
// script finds the node from the same environment) and returns its printed result.
func (b *privateBroker) rabbitmqEval(expr string) string {
	b.t.Helper()
	cmd := exec.Command(filepath.Join(repoRoot(b.t), "scripts", "brokers", "rabbitmqctl.sh"), "-q", "eval", expr)
	cmd.Env = b.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		b.t.Fatalf("rabbitmqctl eval %s: %v\n%s", expr, err, errOut.String())
	}
	return strings.TrimSpace(out.String())
}
