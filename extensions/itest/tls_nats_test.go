package itest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nkeys"
)

// A NATS server that requires TLS with a client certificate (verify: true) and an NKey
// user, started by scripts/brokers/nats.sh with NATS_CONFIG on its own ports: the right
// settings run (received == sent); a wrong CA, a missing client certificate and an unknown
// NKey are refused (113) naming the broker; a certificate whose key does not match, or a file
// that is not there, is a scenario error (111) at file:line:col before anything connects; no
// seed appears in any output. Certificates and keys are made at test time and referenced
// relative to the scenario file.
func TestNATSTLSAndNKey(t *testing.T) {
	k6Binary(t)
	waitTurn(t, 6*time.Second) // a private broker starts: in the waiting tier
	dir := t.TempDir()
	p := newPKI(t, dir)
	user := nkeyUser(t, dir, "user.nk")
	nkeyUser(t, dir, "stranger.nk") // a user the server does not list
	pub, err := user.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "server.conf")
	writeFile(t, conf, fmt.Sprintf(`tls {
  cert_file: %q
  key_file: %q
  ca_file: %q
  verify: true
}
authorization {
  users = [ { nkey: %q } ]
}
`, p.serverCert, p.serverKey, p.caFile, pub))
	startPrivate(t, "nats", "NATS_PORT=14232", "NATS_MONITOR_PORT=18232", "NATS_CONFIG="+conf)
	seeds := []string{seedOf(t, filepath.Join(dir, "user.nk")), seedOf(t, filepath.Join(dir, "stranger.nk"))}

	good := "tls: { ca_file: ca.pem, cert_file: client.pem, key_file: client-key.pem }, nkey_seed_file: user.nk"
	cases := []struct {
		name, opts string
		code       int
		want       []string // in stderr or stdout
	}{
		{"ok", good, 0, nil},
		{"wrong-ca", "tls: { ca_file: other-ca.pem, cert_file: client.pem, key_file: client-key.pem }, nkey_seed_file: user.nk", 113,
			[]string{"nats", "certificate"}},
		{"no-client-cert", "tls: { ca_file: ca.pem }, nkey_seed_file: user.nk", 113, []string{"nats", "tls"}},
		{"unknown-nkey", "tls: { ca_file: ca.pem, cert_file: client.pem, key_file: client-key.pem }, nkey_seed_file: stranger.nk", 113,
			[]string{"nats", "authorization violation"}},
		{"key-mismatch", "tls: { ca_file: ca.pem, cert_file: client.pem, key_file: server-key.pem }, nkey_seed_file: user.nk", 111,
			[]string{"tls-nats-key-mismatch.yaml:6:", "broker.nats.tls.cert_file", "private key does not match public key"}},
		{"missing-ca", "tls: { ca_file: nope.pem, cert_file: client.pem, key_file: client-key.pem }, nkey_seed_file: user.nk", 111,
			[]string{"tls-nats-missing-ca.yaml:6:", "broker.nats.tls.ca_file", "nope.pem", "no such file"}},
		{"bad-seed", "tls: { ca_file: ca.pem, cert_file: client.pem, key_file: client-key.pem }, nkey_seed_file: ca.pem", 111,
			[]string{"broker.nats.nkey_seed_file", "holds no NKey seed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := "tls-nats-" + c.name
			file := filepath.Join(dir, name+".yaml")
			writeFile(t, file, fmt.Sprintf(`name: %s
description: TLS with a client certificate and an NKey user
broker:
  type: nats
  url: nats://127.0.0.1:14232
  nats: { mode: core, %s }
workload: { destination: mqbench.itest.tls, warmup: 1s, duration: 3s, drain: 1s }
matrix:
  - { size: 256B, rate: 200 }
validity: { allow_dropped_iterations: true } # delivery and authentication are under test, in the waiting tier
`, name, c.opts))
			checkAuthRun(t, runScenario(t, file), c.code, c.want, seeds...)
		})
	}
}

// nkeyUser makes an NKey user and writes its seed into dir/name.
func nkeyUser(t *testing.T, dir, name string) nkeys.KeyPair {
	t.Helper()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, err := kp.Seed()
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, name), string(seed)+"\n")
	return kp
}

func seedOf(t *testing.T, f string) string {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
