package itest

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// A Kafka listener that requires TLS with a client certificate and SCRAM-SHA-512 (SASL_SSL,
// ssl.client.auth=required, the broker's key and certificate in a PEM keystore), added by
// scripts/brokers/kafka.sh with KAFKA_SSL_PORT to a private broker: the right settings run
// (received == sent); a wrong CA, a missing client certificate and a wrong password are
// refused (113) naming the broker; the password appears in no output.
func TestKafkaMutualTLSAndSCRAM(t *testing.T) {
	k6Binary(t)
	waitTurn(t, 16*time.Second) // a private broker starts: in the waiting tier
	dir := t.TempDir()
	p := newPKI(t, dir)
	keystore := p.keystore(t, dir, "kafka-keystore.pem")
	startPrivate(t, "kafka", "KAFKA_PORT=29292", "KAFKA_CONTROLLER_PORT=29293", "KAFKA_SASL_PORT=29294",
		"KAFKA_SSL_PORT=29295", "KAFKA_TLS_KEYSTORE="+keystore, "KAFKA_TLS_CA="+p.caFile)
	const secret = "mqbench-secret" // scripts/brokers/kafka.sh's test user

	good := "ca_file: ca.pem, cert_file: client.pem, key_file: client-key.pem"
	cases := []struct {
		name, tls, password string
		code                int
		want                []string
	}{
		{"ok", good, secret, 0, nil},
		{"wrong-ca", "ca_file: other-ca.pem, cert_file: client.pem, key_file: client-key.pem", secret, 113, []string{"kafka", "certificate"}},
		{"no-client-cert", "ca_file: ca.pem", secret, 113, []string{"kafka"}},
		{"wrong-password", good, "not-" + secret, 113, []string{"kafka", "authentication"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runEnv := []string{"MQB_ITEST_KAFKA_USER=mqbench", "MQB_ITEST_KAFKA_PASSWORD=" + c.password} // a parallel test: the run's environment, not t.Setenv
			name := "tls-kafka-" + c.name
			file := filepath.Join(dir, name+".yaml")
			writeFile(t, file, fmt.Sprintf(`name: %s
description: mutual TLS and SCRAM-SHA-512
broker:
  type: kafka
  url: kafka://127.0.0.1:29295
  kafka:
    security:
      tls: { %s }
      sasl: { mechanism: SCRAM-SHA-512, username_env: MQB_ITEST_KAFKA_USER, password_env: MQB_ITEST_KAFKA_PASSWORD }
workload: { destination: mqbench-itest-tls, warmup: 1s, duration: 3s, drain: 2s }
matrix:
  - { size: 256B, rate: 200 }
validity: { allow_dropped_iterations: true } # delivery and authentication are under test, in the waiting tier
`, name, c.tls))
			checkAuthRun(t, runScenarioEnvTee(t, file, runEnv, nil), c.code, c.want, c.password)
		})
	}
}
