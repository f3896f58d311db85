package itest

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Two TLS acceptors on a private ActiveMQ Artemis (scripts/brokers/artemis.sh with
// ARTEMIS_TLS_KEYSTORE: the broker's key and certificate in a PEM keystore): one with the
// broker's certificate only, where the test user logs in with SASL PLAIN, one that requires a
// client certificate (needClientAuth), where SASL EXTERNAL logs in the certificate's subject.
// The right settings run (received == sent); a wrong CA, a missing client certificate and a
// wrong password are refused (113) naming the driver and what was refused; the password
// appears in no output.
func TestArtemisTLSAndExternal(t *testing.T) {
	k6Binary(t)
	waitTurn(t, 14*time.Second) // a private broker starts: in the waiting tier
	dir := t.TempDir()
	p := newPKI(t, dir)
	keystore := p.keystore(t, dir, "artemis-keystore.pem")
	env := []string{"ARTEMIS_PORT=25683", "ARTEMIS_CORE_PORT=25627", "ARTEMIS_TLS_PORT=25681", "ARTEMIS_MTLS_PORT=25682",
		"ARTEMIS_TLS_KEYSTORE=" + keystore, "ARTEMIS_TLS_CA=" + p.caFile, "ARTEMIS_CERT_DN=CN=mqbench client"}
	// The shared state dir's distribution, when it is there: no second fetch and extraction.
	dist := filepath.Join(cmp.Or(os.Getenv("MQBENCH_STATE"), filepath.Join(repoRoot(t), ".cache", "brokers")), "artemis")
	if _, err := os.Stat(dist); err == nil {
		env = append(env, "ARTEMIS_DIST="+dist)
	}
	startPrivate(t, "artemis", env...)
	const secret = "mqbench-test" // scripts/brokers/artemis.sh's test user
	writeFile(t, filepath.Join(dir, "artemis-password"), secret+"\n")

	client := "ca_file: ca.pem, cert_file: client.pem, key_file: client-key.pem"
	cases := []struct {
		name, url, opts, password string
		code                      int
		want                      []string
	}{
		{"external", "amqps://127.0.0.1:25682", "auth: external, tls: { " + client + " }", "", 0, nil},
		{"plain-password-file", "amqps://mqbench@127.0.0.1:25681", "password_file: artemis-password, tls: { ca_file: ca.pem }", "", 0, nil},
		{"wrong-ca", "amqps://127.0.0.1:25682", "auth: external, tls: { ca_file: other-ca.pem, cert_file: client.pem, key_file: client-key.pem }", "", 113,
			[]string{"amqp10", "certificate", "refused"}},
		{"no-client-cert", "amqps://mqbench@127.0.0.1:25682", "password_env: MQB_ITEST_ARTEMIS_PASSWORD, tls: { ca_file: ca.pem }", secret, 113,
			[]string{"amqp10", "refused the TLS connection"}},
		{"wrong-password", "amqps://mqbench@127.0.0.1:25681", "password_env: MQB_ITEST_ARTEMIS_PASSWORD, tls: { ca_file: ca.pem }", "not-the-password-x9", 113,
			[]string{"amqp10", "authentication refused", "mqbench"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runEnv := []string{"MQB_ITEST_ARTEMIS_PASSWORD=" + c.password} // a parallel test: the run's environment, not t.Setenv
			name := "tls-artemis-" + c.name
			file := filepath.Join(dir, name+".yaml")
			writeFile(t, file, fmt.Sprintf(`name: %s
description: Artemis over TLS, SASL EXTERNAL with a client certificate or PLAIN
broker:
  type: amqp10
  url: %s
  amqp10: { address: plain, %s }
workload: { destination: mqbench.itest.tls, warmup: 1s, duration: 3s, drain: 1s }
matrix:
  - { size: 256B, rate: 50 }
validity: { allow_dropped_iterations: true } # delivery and authentication are under test, in the waiting tier
`, name, c.url, c.opts))
			checkAuthRun(t, runScenarioEnvTee(t, file, runEnv, nil), c.code, c.want, secret, c.password)
		})
	}
}
