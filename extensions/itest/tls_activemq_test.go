package itest

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// AMQP over TLS that requires a client certificate on a private ActiveMQ Classic
// (scripts/brokers/activemq.sh with ACTIVEMQ_TLS_PORT; its AMQP transport has SASL PLAIN and
// ANONYMOUS only, so the login is the test user's password over mutual TLS): the right
// settings run (received == sent); a wrong CA, a missing client certificate and a wrong
// password are refused (113) naming the driver and what was refused; the password appears in
// no output.
func TestActiveMQTLS(t *testing.T) {
	k6Binary(t)
	waitTurn(t, 10*time.Second) // a private broker starts: in the waiting tier
	dir := t.TempDir()
	p := newPKI(t, dir)
	env := []string{"ACTIVEMQ_PORT=25684", "ACTIVEMQ_OPENWIRE_PORT=25626", "ACTIVEMQ_TLS_PORT=25685",
		"ACTIVEMQ_TLS_CERT=" + p.serverCert, "ACTIVEMQ_TLS_KEY=" + p.serverKey, "ACTIVEMQ_TLS_CA=" + p.caFile}
	if home := currentActiveMQBuild(t); home != "" {
		env = append(env, "ACTIVEMQ_HOME="+home)
	}
	startPrivate(t, "activemq", env...)
	const secret = "mqbench-test" // scripts/brokers/activemq.sh's test user
	const url = "amqps://mqbench@127.0.0.1:25685"
	pw := "password_env: MQB_ITEST_ACTIVEMQ_PASSWORD"
	cases := []struct {
		name, opts, password string
		code                 int
		want                 []string
	}{
		{"ok", pw + ", tls: { ca_file: ca.pem, cert_file: client.pem, key_file: client-key.pem }", secret, 0, nil},
		{"wrong-ca", pw + ", tls: { ca_file: other-ca.pem, cert_file: client.pem, key_file: client-key.pem }", secret, 113,
			[]string{"amqp10", "certificate", "refused"}},
		{"no-client-cert", pw + ", tls: { ca_file: ca.pem }", secret, 113, []string{"amqp10", "refused the TLS connection"}},
		{"wrong-password", pw + ", tls: { ca_file: ca.pem, cert_file: client.pem, key_file: client-key.pem }", "not-the-password-x9", 113,
			[]string{"amqp10", "refused", "mqbench"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runEnv := []string{"MQB_ITEST_ACTIVEMQ_PASSWORD=" + c.password} // a parallel test: the run's environment, not t.Setenv
			name := "tls-activemq-" + c.name
			file := filepath.Join(dir, name+".yaml")
			writeFile(t, file, fmt.Sprintf(`name: %s
description: ActiveMQ Classic over TLS with a client certificate, SASL PLAIN
broker:
  type: amqp10
  url: %s
  amqp10: { address: activemq, %s }
workload: { destination: mqbench.itest.tls, warmup: 1s, duration: 3s, drain: 5s }
matrix:
  - { size: 256B, rate: 50 }
validity: { allow_dropped_iterations: true } # delivery and authentication are under test, in the waiting tier
`, name, url, c.opts))
			checkAuthRun(t, runScenarioEnvTee(t, file, runEnv, nil), c.code, c.want, secret, c.password)
		})
	}
}

// currentActiveMQBuild is the shared state dir's ActiveMQ build when it was made from this
// tree's pom.xml and Broker.java (activemq.sh's stamp), else "": the private broker then
// builds its own (a stale shared build must not be replaced under the default broker).
func currentActiveMQBuild(t *testing.T) string {
	t.Helper()
	home := filepath.Join(cmp.Or(os.Getenv("MQBENCH_STATE"), filepath.Join(repoRoot(t), ".cache", "brokers")), "activemq")
	stamp, err := os.ReadFile(filepath.Join(home, ".stamp"))
	if err != nil {
		return ""
	}
	h := sha256.New()
	for _, f := range []string{"pom.xml", "Broker.java"} {
		b, err := os.ReadFile(filepath.Join(repoRoot(t), "brokers", "activemq", f))
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
	}
	if hex.EncodeToString(h.Sum(nil))[:16] != strings.TrimSpace(string(stamp)) {
		return ""
	}
	return home
}
