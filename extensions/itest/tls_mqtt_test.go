package itest

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// A Mosquitto that serves MQTT over TLS only, requires a client certificate and a password,
// started by scripts/brokers/mosquitto.sh on its own port: the right settings run (received ==
// sent); a wrong CA, a missing client certificate and a wrong password are refused (113)
// naming the broker; plain MQTT sent to the TLS listener is refused (113) within the connect
// timeout, not waited on; the password appears in no output.
func TestMQTTTLSAndPassword(t *testing.T) {
	k6Binary(t)
	waitTurn(t, 15*time.Second) // a private broker starts: in the waiting tier
	dir := t.TempDir()
	p := newPKI(t, dir)
	const secret = "mqtt-pw-never-printed"
	passwd := filepath.Join(dir, "passwd")
	if out, err := exec.Command("mosquitto_passwd", "-c", "-b", passwd, "bench", secret).CombinedOutput(); err != nil {
		t.Fatalf("mosquitto_passwd: %v\n%s", err, out)
	}
	startPrivate(t, "mosquitto", "MOSQUITTO_PORT=18883", "MOSQUITTO_ANONYMOUS=false",
		"MOSQUITTO_CONF_EXTRA="+fmt.Sprintf("cafile %s\ncertfile %s\nkeyfile %s\nrequire_certificate true\npassword_file %s",
			p.caFile, p.serverCert, p.serverKey, passwd))

	good := "tls: { ca_file: ca.pem, cert_file: client.pem, key_file: client-key.pem }"
	cases := []struct {
		name, url, opts, password string
		code                      int
		want                      []string
	}{
		{"ok", "mqtts://bench@127.0.0.1:18883", good, secret, 0, nil},
		{"wrong-ca", "mqtts://bench@127.0.0.1:18883", "tls: { ca_file: other-ca.pem, cert_file: client.pem, key_file: client-key.pem }", secret, 113, []string{"mqtt", "certificate"}},
		{"no-client-cert", "mqtts://bench@127.0.0.1:18883", "tls: { ca_file: ca.pem }", secret, 113, []string{"mqtt", "127.0.0.1:18883"}},
		{"wrong-password", "mqtts://bench@127.0.0.1:18883", good, "not-" + secret, 113, []string{"mqtt", "not authorized"}},
		{"plain-to-tls", "mqtt://bench@127.0.0.1:18883", "connect_timeout: 3s", secret, 113, []string{"mqtt", "127.0.0.1:18883"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runEnv := []string{"MQB_ITEST_MQTT_PASSWORD=" + c.password} // a parallel test: the run's environment, not t.Setenv
			name := "tls-mqtt-" + c.name
			file := filepath.Join(dir, name+".yaml")
			writeFile(t, file, fmt.Sprintf(`name: %s
description: TLS with a client certificate and a password
broker:
  type: mqtt
  url: %s
  mqtt: { qos: 1, password_env: MQB_ITEST_MQTT_PASSWORD, %s }
workload: { destination: mqbench/itest/tls, warmup: 1s, duration: 3s, drain: 1s }
matrix:
  - { size: 256B, rate: 200 }
validity: { allow_dropped_iterations: true } # delivery and authentication are under test, in the waiting tier
`, name, c.url, c.opts))
			began := time.Now()
			checkAuthRun(t, runScenarioEnvTee(t, file, runEnv, nil), c.code, c.want, secret)
			if c.name == "plain-to-tls" && time.Since(began) > 30*time.Second {
				t.Errorf("plain MQTT to a TLS listener took %v to be refused: a hang, not a connect timeout", time.Since(began).Round(time.Second))
			}
		})
	}
}
