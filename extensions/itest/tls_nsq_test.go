package itest

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// A private nsqd that requires TLS of every client (--tls-required: the TCP protocol upgrades
// after IDENTIFY, the HTTP API is HTTPS only) and a client certificate signed by the test CA
// (--tls-client-auth-policy require-verify): the right settings run (received == sent); a
// wrong CA, a missing client certificate and plain text are refused (113) naming the broker.
func TestNSQTLSClientCert(t *testing.T) {
	k6Binary(t)
	waitTurn(t, 7*time.Second) // a private broker starts: in the waiting tier
	dir := t.TempDir()
	p := newPKI(t, dir)
	startPrivate(t, "nsq", "NSQ_PORT=14350", "NSQ_HTTP_PORT=14351", "NSQ_HTTPS_PORT=14352",
		"NSQ_TLS_CERT="+p.serverCert, "NSQ_TLS_KEY="+p.serverKey, "NSQ_TLS_CA="+p.caFile)
	const api = "http_address: https://127.0.0.1:14352"
	cases := []struct {
		name, opts string
		code       int
		want       []string
	}{
		{"ok", api + ", tls: { ca_file: ca.pem, cert_file: client.pem, key_file: client-key.pem }", 0, nil},
		// MPUB batches go on a connection of their own making: TLS reaches it too
		{"ok-mpub", api + ", publish_batch: 20, tls: { ca_file: ca.pem, cert_file: client.pem, key_file: client-key.pem }", 0, nil},
		{"wrong-ca", api + ", tls: { ca_file: other-ca.pem, cert_file: client.pem, key_file: client-key.pem }", 113,
			[]string{"nsq", "127.0.0.1:14350", "TLS refused", "certificate signed by unknown authority"}},
		{"no-client-cert", api + ", tls: { ca_file: ca.pem }", 113, []string{"nsq", "127.0.0.1:14350", "TLS refused"}},
		{"plain-text", "http_address: 127.0.0.1:14351", 113, []string{"nsq", "TLS"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkAuthRun(t, runScenario(t, nsqScenario(t, dir, "tls-nsq-"+c.name, "nsq://127.0.0.1:14350", c.opts)), c.code, c.want)
		})
	}
}

// An nsqd that requires AUTH (--auth-http-address) whose auth server is not there: a client
// without a secret is refused before it sends one, a client with one is refused by nsqd
// (E_AUTH_FAILED); both 113 naming the broker, the secret in no output. (A secret an auth
// server accepts is not run here: that needs an auth server, which the project does not
// install.)
func TestNSQAuthSecretRefused(t *testing.T) {
	k6Binary(t)
	waitTurn(t, 7*time.Second) // a private broker starts: in the waiting tier
	dir := t.TempDir()
	const secret = "nsq-auth-secret-never-printed"
	startPrivate(t, "nsq", "NSQ_PORT=14360", "NSQ_HTTP_PORT=14361", "NSQ_AUTH_HTTP_ADDRESS=127.0.0.1:1")
	writeFile(t, filepath.Join(dir, "secret"), secret+"\n")
	cases := []struct {
		name, opts string
		want       []string
	}{
		{"no-secret", "max_in_flight: 10", []string{"nsq", "auth required"}},
		{"secret-refused", "auth_secret_file: secret", []string{"nsq", "E_AUTH_FAILED"}},
		{"secret-refused-mpub", "auth_secret_file: secret, publish_batch: 20", []string{"nsq", "E_AUTH_FAILED"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkAuthRun(t, runScenario(t, nsqScenario(t, dir, "auth-nsq-"+c.name, "nsq://127.0.0.1:14360", c.opts)), 113, c.want, secret)
		})
	}
}

// nsqScenario writes a short one-cell NSQ scenario into dir and returns its file.
func nsqScenario(t *testing.T, dir, name, url, opts string) string {
	t.Helper()
	file := filepath.Join(dir, name+".yaml")
	writeFile(t, file, fmt.Sprintf(`name: %s
description: NSQ over TLS with a client certificate, or with an auth secret
broker:
  type: nsq
  url: %s
  nsq: { %s }
workload: { destination: mqbench-itest-tls, warmup: 1s, duration: 3s, drain: 1s }
matrix:
  - { size: 256B, rate: 200 }
validity: { allow_dropped_iterations: true } # delivery and refusals are under test, on a shared machine
`, name, url, opts))
	return file
}
