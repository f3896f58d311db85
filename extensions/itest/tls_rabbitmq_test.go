package itest

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// A RabbitMQ TLS listener that requires a client certificate (verify_peer,
// fail_if_no_peer_cert) and offers SASL EXTERNAL (rabbitmq_auth_mechanism_ssl: the user is
// the certificate's common name), on a private node: EXTERNAL with the right certificate
// runs (received == sent); a wrong CA, a missing client certificate, a certificate whose name
// is no user, and a wrong password over TLS are refused (113) naming the broker; the password
// appears in no output.
func TestRabbitMQTLSAndExternal(t *testing.T) {
	k6Binary(t)
	waitTurn(t, 30*time.Second) // a private broker starts: in the waiting tier
	dir := t.TempDir()
	p := newPKI(t, dir)
	conf := fmt.Sprintf(`listeners.ssl.default = 127.0.0.1:25671
ssl_options.cacertfile = %s
ssl_options.certfile = %s
ssl_options.keyfile = %s
ssl_options.verify = verify_peer
ssl_options.fail_if_no_peer_cert = true
auth_mechanisms.1 = PLAIN
auth_mechanisms.2 = AMQPLAIN
auth_mechanisms.3 = EXTERNAL
ssl_cert_login_from = common_name`, p.caFile, p.serverCert, p.serverKey)
	b := startPrivate(t, "rabbitmq", "RABBITMQ_PORT=15663", "RABBITMQ_MGMT_PORT=15664", "RABBITMQ_PROMETHEUS_PORT=15665",
		"RABBITMQ_EXTRA_PLUGINS=rabbitmq_auth_mechanism_ssl", "RABBITMQ_EXTRA_CONF="+conf)
	// The client certificate's common name is the user EXTERNAL logs in as.
	for _, args := range [][]string{
		{"add_user", "mqbench client", "unused-" + filepath.Base(dir)},
		{"set_permissions", "-p", "/", "mqbench client", ".*", ".*", ".*"},
	} {
		cmd := exec.Command(filepath.Join(repoRoot(t), "scripts", "brokers", "rabbitmqctl.sh"), args...)
		cmd.Env = b.env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("rabbitmqctl %v: %v\n%s", args, err, out.String())
		}
	}
	const secret = "guest" // the private node's guest user (loopback only)
	client := "ca_file: ca.pem, cert_file: client.pem, key_file: client-key.pem"
	cases := []struct {
		name, url, opts, password string
		code                      int
		want                      []string
	}{
		{"external", "amqps://127.0.0.1:25671/", "auth: external, tls: { " + client + " }", "", 0, nil},
		{"plain-over-tls", "amqps://guest@127.0.0.1:25671/", "password_env: MQB_ITEST_RABBITMQ_PASSWORD, tls: { " + client + " }", secret, 0, nil},
		{"wrong-ca", "amqps://127.0.0.1:25671/", "auth: external, tls: { ca_file: other-ca.pem, cert_file: client.pem, key_file: client-key.pem }", "", 113,
			[]string{"rabbitmq", "certificate"}},
		{"no-client-cert", "amqps://guest@127.0.0.1:25671/", "password_env: MQB_ITEST_RABBITMQ_PASSWORD, tls: { ca_file: ca.pem }", secret, 113, []string{"rabbitmq"}},
		{"unknown-certificate-user", "amqps://127.0.0.1:25671/", "auth: external, tls: { ca_file: ca.pem, cert_file: server.pem, key_file: server-key.pem }", "", 113,
			[]string{"rabbitmq"}},
		{"wrong-password", "amqps://guest@127.0.0.1:25671/", "password_env: MQB_ITEST_RABBITMQ_PASSWORD, tls: { " + client + " }", "not-the-password-x9", 113,
			[]string{"rabbitmq", "authentication failed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runEnv := []string{"MQB_ITEST_RABBITMQ_PASSWORD=" + c.password} // a parallel test: the run's environment, not t.Setenv
			name := "tls-rabbitmq-" + c.name
			file := filepath.Join(dir, name+".yaml")
			writeFile(t, file, fmt.Sprintf(`name: %s
description: TLS with a client certificate, SASL EXTERNAL or PLAIN
broker:
  type: rabbitmq
  url: %s
  rabbitmq: { %s }
workload: { destination: mqbench.itest.tls, warmup: 1s, duration: 3s, drain: 1s }
matrix:
  - { size: 256B, rate: 200 }
validity: { allow_dropped_iterations: true } # delivery and authentication are under test, in the waiting tier
`, name, c.url, c.opts))
			checkAuthRun(t, runScenarioEnvTee(t, file, runEnv, nil), c.code, c.want, printable(c.password, secret)...)
		})
	}
}

// printable: the rabbitmq cases' password must not be printed, except guest's, which the
// broker's user list and urls name anyway.
func printable(password, guest string) []string {
	if password == guest {
		return nil
	}
	return []string{password}
}
