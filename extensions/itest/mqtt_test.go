package itest

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// Short real runs through bin/k6 on the three MQTT brokers make test starts: Mosquitto (MQTT
// 5, QoS 1 and 2), RabbitMQ's MQTT plugin and the NATS server's MQTT listener (3.1.1, QoS 1):
// everything sent is received, nothing lost, publish latency measured (PUBACK, PUBCOMP). MQTT 5
// spoken to a broker that only has 3.1.1 is refused (113) with one line that says which
// protocol to set.
func TestMQTTBrokers(t *testing.T) {
	k6Binary(t)
	waitTurn(t, 8*time.Second) // counts, no timing: in the waiting tier
	dir := t.TempDir()
	cases := []struct {
		name, url, opts string
		code            int
		want            []string
	}{
		{"mosquitto-v5-qos1", "mqtt://127.0.0.1:1883", `protocol: "5", qos: 1`, 0, nil},
		{"mosquitto-v5-qos2", "mqtt://127.0.0.1:1883", `protocol: "5", qos: 2`, 0, nil},
		{"mosquitto-v311-qos1", "mqtt://127.0.0.1:1883", `protocol: "3.1.1", qos: 1`, 0, nil},
		{"rabbitmq-v311-qos1", "mqtt://127.0.0.1:1884", `protocol: "3.1.1", qos: 1, share: false`, 0, nil},
		{"nats-v311-qos1", "mqtt://127.0.0.1:1885", `protocol: "3.1.1", qos: 1, share: false`, 0, nil},
		{"rabbitmq-v5-refused", "mqtt://127.0.0.1:1884", `protocol: "5", qos: 1, share: false`, 113, []string{"127.0.0.1:1884", "3.1.1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(dir, c.name+".yaml")
			writeFile(t, file, fmt.Sprintf(`name: %s
description: one short cell through the mqtt driver
broker:
  type: mqtt
  url: %s
  mqtt: { %s }
workload: { destination: mqbench/itest/%s, warmup: 1s, duration: 3s, drain: 2s }
matrix:
  - { size: 1KB, rate: 300 }
validity: { allow_dropped_iterations: true } # delivery is under test, in the waiting tier
`, c.name, c.url, c.opts, c.name))
			r := runScenario(t, file)
			checkAuthRun(t, r, c.code, c.want)
			if c.code != 0 {
				return
			}
			cell := r.summary.Cells[0]
			if cell.PublishLatency.Count == 0 {
				t.Errorf("no publish latency measured at QoS ≥ 1 (acks: %s)", r.summary.Broker.AckMode)
			}
		})
	}
}
