package mqttdrv

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// target is one broker the driver is tested against, with what it supports.
type target struct {
	name     string
	tg       drivertest.Target
	protos   []string // protocol versions it speaks
	maxQoS   int      // highest QoS tested
	shareSub bool     // serves $share/<group>/<topic>
}

// targets: Mosquitto 2.0 speaks 5 and 3.1.1 with QoS 0–2 and shared subscriptions.
// RabbitMQ 3.10's MQTT plugin and the NATS server's MQTT listener (2.15) speak 3.1.1 only
// and have no shared subscriptions (checked: $share/<group>/<topic> receives nothing there).
// Both take QoS 2 (checked): the NATS server as such, RabbitMQ downgrading it to QoS 1
// (at-least-once), so a QoS 2 run there promises less than its "PUBCOMP" says.
var targets = []target{
	{name: "mosquitto", protos: []string{v5, v311}, maxQoS: 2, shareSub: true,
		tg: drivertest.Target{Driver: "mqtt", Env: "MQBENCH_MOSQUITTO_URL", DefaultURL: "mqtt://127.0.0.1:1883", Start: "mosquitto"}},
	{name: "rabbitmq", protos: []string{v311}, maxQoS: 2,
		tg: drivertest.Target{Driver: "mqtt", Env: "MQBENCH_RABBITMQ_MQTT_URL", DefaultURL: "mqtt://guest:guest@127.0.0.1:1884", Start: "rabbitmq"}},
	{name: "nats", protos: []string{v311}, maxQoS: 2,
		tg: drivertest.Target{Driver: "mqtt", Env: "MQBENCH_NATS_MQTT_URL", DefaultURL: "mqtt://127.0.0.1:1885", Start: "nats"}},
}

// url probes the target with its first protocol, skipping the test when it does not answer.
func (tg target) url(t *testing.T) string {
	t.Helper()
	o := &Options{Protocol: tg.protos[0]}
	o.Defaults()
	tg.tg.Options = o
	return drivertest.Probe(t, tg.tg)
}

func unique(name string) string {
	return fmt.Sprintf("mqbench/test/%s/%d", name, time.Now().UnixNano())
}

func runID(name string) string { return fmt.Sprintf("%s-%d", name, time.Now().UnixNano()) }

func opts(proto string, q int, mod func(*Options)) *Options {
	o := &Options{Protocol: proto, QoS: ptr(q)}
	if mod != nil {
		mod(o)
	}
	o.Defaults()
	return o
}

// TestConformance: the suite for every protocol × QoS each broker supports; the consumers
// share through $share where the broker serves it, else one consumer subscribes plainly.
func TestConformance(t *testing.T) {
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			url := tg.url(t)
			for _, proto := range tg.protos {
				for q := 0; q <= tg.maxQoS; q++ {
					name := fmt.Sprintf("v%s-qos%d", proto, q)
					t.Run(name, func(t *testing.T) {
						o := opts(proto, q, func(o *Options) {
							if !tg.shareSub {
								o.Share = ptr(false)
							}
						})
						cfg := driver.Config{URL: url, Destination: unique(tg.name + "-" + name), Options: o, RunID: runID(name)}
						if tg.shareSub {
							drivertest.RunShared(t, "mqtt", cfg)
						} else {
							drivertest.Run(t, "mqtt", cfg)
						}
					})
				}
			}
		})
	}
}

// TestFanOut: each of 3 subscriptions (its own shared group) gets every message, shared by
// its 2 consumers; persistent sessions are removed at Teardown.
func TestFanOut(t *testing.T) {
	for _, tg := range targets {
		if !tg.shareSub {
			continue // RunFanOut opens 2 consumers per subscription: it needs $share
		}
		t.Run(tg.name, func(t *testing.T) {
			url := tg.url(t)
			for _, proto := range tg.protos {
				for _, clean := range []bool{true, false} {
					name := fmt.Sprintf("v%s-clean-%v", proto, clean)
					t.Run(name, func(t *testing.T) {
						o := opts(proto, 1, func(o *Options) { o.CleanStart = ptr(clean) })
						drivertest.RunFanOut(t, "mqtt", driver.Config{URL: url, Destination: unique("fanout-" + name), Options: o, RunID: runID("fo")})
					})
				}
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	drivertest.Unreachable(t, "mqtt", "mqtt://127.0.0.1:1", nil)
	drivertest.Unreachable(t, "mqtt", "mqtt://user:s3cret@127.0.0.1:1", opts(v311, 1, nil))
}

// TestUnsupportedProtocol: an MQTT 5 CONNECT to a broker that speaks 3.1.1 only is one line
// naming the broker and the option to set.
func TestUnsupportedProtocol(t *testing.T) {
	for _, tg := range targets[1:] {
		t.Run(tg.name, func(t *testing.T) {
			url := tg.url(t)
			_, err := Open(t.Context(), driver.Config{URL: url, Destination: "mqbench/v5", Options: opts(v5, 1, nil)})
			if err == nil || !strings.Contains(err.Error(), `set mqtt.protocol: "3.1.1"`) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line asking for protocol 3.1.1", err)
			}
			t.Log(err)
		})
	}
}

// TestNoSharedSubscriptions: on a broker without $share, Setup says to set share: false
// instead of a run that receives nothing.
func TestNoSharedSubscriptions(t *testing.T) {
	for _, tg := range targets {
		if tg.shareSub {
			continue
		}
		t.Run(tg.name, func(t *testing.T) {
			url := tg.url(t)
			d, err := Open(t.Context(), driver.Config{URL: url, Destination: unique("noshare"), Options: opts(v311, 1, nil), RunID: runID("noshare")})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			err = d.Setup(t.Context())
			if err == nil || !strings.Contains(err.Error(), "share: false") || !strings.Contains(err.Error(), url[len("mqtt://"):]) && !strings.Contains(err.Error(), "127.0.0.1") {
				t.Fatalf("Setup: %v, want a refusal naming the broker and share: false", err)
			}
			t.Log(err)
		})
	}
}

// TestRetainUnavailable: a broker that keeps no retained messages (Mosquitto's
// retain_available false, announced in CONNACK) refuses a publisher with retain: true in one
// line that says what to set, instead of a run whose every send drops the connection.
func TestRetainUnavailable(t *testing.T) {
	m := startMosquitto(t, "retain_available false\nallow_anonymous true")
	d, err := Open(t.Context(), driver.Config{URL: m.url("mqtt"), Destination: unique("retain"), RunID: runID("retain"),
		Options: opts(v5, 1, func(o *Options) { o.Retain = true })})
	if err == nil { // Open's probe connection already carries the publishers' settings
		defer func() { _ = d.Close() }()
		_, err = d.NewPublisher(t.Context(), 0)
	}
	if err == nil || !strings.Contains(err.Error(), "set mqtt.retain: false") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("got %v, want one line asking for retain: false", err)
	}
	t.Log(err)
}
