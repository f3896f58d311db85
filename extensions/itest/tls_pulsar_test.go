package itest

import (
	"cmp"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// hs256Token signs a JWT for subject sub with key: what Pulsar's AuthenticationProviderToken
// verifies with tokenSecretKey.
func hs256Token(key []byte, sub string) string {
	enc := base64.RawURLEncoding
	unsigned := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc.EncodeToString([]byte(`{"sub":"`+sub+`"}`))
	m := hmac.New(sha256.New, key)
	m.Write([]byte(unsigned))
	return unsigned + "." + enc.EncodeToString(m.Sum(nil))
}

func randomKey(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

// A private Pulsar standalone (scripts/brokers/pulsar.sh with PULSAR_TLS_PORT and
// PULSAR_TOKEN_SECRET_FILE) with a TLS listener that requires a client certificate and token
// authentication on every port: the right settings run (received == sent); a wrong CA, a
// missing client certificate and a token signed with another key are refused (113) naming
// the broker and what was refused; no token appears in any output.
func TestPulsarTLSAndToken(t *testing.T) {
	k6Binary(t)
	dir := t.TempDir()
	p := newPKI(t, dir)
	key := randomKey(t)
	keyFile := filepath.Join(dir, "token-secret.key")
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	token, wrong := hs256Token(key, "mqbench"), hs256Token(randomKey(t), "mqbench")
	writeFile(t, filepath.Join(dir, "token.jwt"), token+"\n")
	env := []string{"PULSAR_PORT=26750", "PULSAR_WEB_PORT=28180", "PULSAR_TLS_PORT=26751",
		"PULSAR_TLS_CERT=" + p.serverCert, "PULSAR_TLS_KEY=" + p.serverKey, "PULSAR_TLS_CA=" + p.caFile,
		"PULSAR_TOKEN_SECRET_FILE=" + keyFile, "PULSAR_ADMIN_TOKEN=" + hs256Token(key, "admin"),
		// The standalone took 113 s to serve on this 2-core machine at load 19 (the default
		// 120 s limit is meant for a quiet one).
		"START_TIMEOUT=300"}
	// The shared state dir's jars: no second copy of 235 MB.
	lib := filepath.Join(cmp.Or(os.Getenv("MQBENCH_STATE"), filepath.Join(repoRoot(t), ".cache", "brokers")), "pulsar", "lib")
	if _, err := os.Stat(lib); err == nil {
		env = append(env, "PULSAR_LIB="+lib)
	}
	startPrivate(t, "pulsar", env...)

	admin := "admin_url: http://127.0.0.1:28180"
	client := "ca_file: ca.pem, cert_file: client.pem, key_file: client-key.pem"
	cases := []struct {
		name, opts, token string
		code              int
		want              []string
	}{
		{"ok", admin + ", token_file: token.jwt, tls: { " + client + " }", "", 0, nil},
		{"wrong-ca", admin + ", token_file: token.jwt, tls: { ca_file: other-ca.pem, cert_file: client.pem, key_file: client-key.pem }", "", 113,
			[]string{"pulsar", "certificate", "refused"}},
		{"no-client-cert", admin + ", token_file: token.jwt, tls: { ca_file: ca.pem }", "", 113, []string{"pulsar", "refused the TLS connection"}},
		{"wrong-token", admin + ", token_env: MQB_ITEST_PULSAR_TOKEN, tls: { " + client + " }", wrong, 113, []string{"pulsar", "refused the token"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("MQB_ITEST_PULSAR_TOKEN", c.token)
			name := "tls-pulsar-" + c.name
			file := filepath.Join(dir, name+".yaml")
			writeFile(t, file, fmt.Sprintf(`name: %s
description: Pulsar over TLS with a client certificate and a token
broker:
  type: pulsar
  url: pulsar+ssl://127.0.0.1:26751
  pulsar: { %s }
workload: { destination: mqbench-itest-tls, warmup: 2s, duration: 3s, drain: 5s }
matrix:
  - { size: 256B, rate: 50 }
`, name, c.opts))
			checkAuthRun(t, runScenario(t, file), c.code, c.want, token, wrong)
		})
	}
}
