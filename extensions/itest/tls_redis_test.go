package itest

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// A Redis that serves TLS only, requires client certificates (tls-auth-clients yes) and has
// an ACL user with a password, started by scripts/brokers/redis.sh on its own port: the right
// settings run (received == sent); a wrong CA, a missing client certificate and a wrong
// password are refused (113) naming the broker; the password appears in no output.
func TestRedisTLSAndACLUser(t *testing.T) {
	k6Binary(t)
	waitTurn(t, 6*time.Second) // a private broker starts: in the waiting tier
	dir := t.TempDir()
	p := newPKI(t, dir)
	const secret = "redis-acl-pw-never-printed"
	acl := filepath.Join(dir, "users.acl")
	writeFile(t, acl, "user default on nopass ~* &* +@all\nuser bench on >"+secret+" ~* &* +@all\n")
	startPrivate(t, "redis", "REDIS_PORT=16390", "REDIS_TLS_CERT="+p.serverCert, "REDIS_TLS_KEY="+p.serverKey,
		"REDIS_TLS_CA="+p.caFile, "REDIS_ACL_FILE="+acl)

	good := "tls: { ca_file: ca.pem, cert_file: client.pem, key_file: client-key.pem }"
	cases := []struct {
		name, opts, password string
		code                 int
		want                 []string
	}{
		{"ok", good, secret, 0, nil},
		{"wrong-ca", "tls: { ca_file: other-ca.pem, cert_file: client.pem, key_file: client-key.pem }", secret, 113, []string{"redis", "certificate"}},
		{"no-client-cert", "tls: { ca_file: ca.pem }", secret, 113, []string{"redis"}},
		{"wrong-password", good, "not-" + secret, 113, []string{"redis", "wrongpass"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runEnv := []string{"MQB_ITEST_REDIS_PASSWORD=" + c.password} // a parallel test: the run's environment, not t.Setenv
			name := "tls-redis-" + c.name
			file := filepath.Join(dir, name+".yaml")
			writeFile(t, file, fmt.Sprintf(`name: %s
description: TLS with a client certificate and an ACL user
broker:
  type: redis
  url: redis://bench@127.0.0.1:16390
  redis: { mode: streams, password_env: MQB_ITEST_REDIS_PASSWORD, %s }
workload: { destination: mqbench-itest-tls, warmup: 1s, duration: 3s, drain: 1s }
matrix:
  - { size: 256B, rate: 200 }
validity: { allow_dropped_iterations: true } # delivery and authentication are under test, in the waiting tier
`, name, c.opts))
			checkAuthRun(t, runScenarioEnvTee(t, file, runEnv, nil), c.code, c.want, secret)
		})
	}
}
