package itest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A private PostgreSQL that serves TCP clients over TLS only (scripts/brokers/postgres.sh
// with POSTGRES_TLS_*): a client certificate whose common name is the user (pg_hba `cert`),
// or, for the user bench, a SCRAM password over TLS. The right settings run (received ==
// sent); a wrong CA, a missing client certificate, plain text and a wrong password are
// refused (113) naming the broker and what was refused; the password appears in no output.
func TestPostgresTLSClientCert(t *testing.T) {
	k6Binary(t)
	dir := t.TempDir()
	p := newPKI(t, dir)
	const secret = "pg-scram-pw-never-printed"
	// The server runs as the postgres user, which cannot enter go test's 0700 temp dirs.
	state := postgresStateDir(t)
	b := &privateBroker{t: t, name: "postgres", env: append(os.Environ(), "MQBENCH_STATE="+state, "POSTGRES_PORT=15552",
		"POSTGRES_TLS_CERT="+p.serverCert, "POSTGRES_TLS_KEY="+p.serverKey, "POSTGRES_TLS_CA="+p.caFile,
		"POSTGRES_PASSWORD_USERS=bench")}
	b.script("start.sh")
	t.Cleanup(func() { b.script("stop.sh") })
	// The roles, over the unix socket (trust): the certificate's common name and a password user.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, "host="+filepath.Join(state, "data", "postgres", "sock")+" port=15552 user=postgres dbname=mqbench")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE ROLE "mqbench client" LOGIN`,
		`CREATE ROLE bench LOGIN PASSWORD '` + secret + `'`,
		`GRANT ALL ON SCHEMA public TO "mqbench client", bench`,
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	c.Close(ctx)
	writeFile(t, filepath.Join(dir, "password"), secret+"\n")

	const certUser, pwUser = "postgres://mqbench%20client@127.0.0.1:15552/mqbench", "postgres://bench@127.0.0.1:15552/mqbench"
	client := "tls: { ca_file: ca.pem, cert_file: client.pem, key_file: client-key.pem }"
	cases := []struct {
		name, url, opts, password string
		code                      int
		want                      []string
	}{
		{"client-cert", certUser, client, "", 0, nil},
		{"password-file", pwUser, "sslmode: verify-full, password_file: password, tls: { ca_file: ca.pem }", "", 0, nil},
		{"wrong-ca", certUser, "tls: { ca_file: other-ca.pem, cert_file: client.pem, key_file: client-key.pem }", "", 113,
			[]string{"postgres", "127.0.0.1:15552", "certificate is not trusted", "signed by unknown authority"}},
		{"wrong-ca-verify-ca", certUser, "sslmode: verify-ca, tls: { ca_file: other-ca.pem, cert_file: client.pem, key_file: client-key.pem }", "", 113,
			[]string{"postgres", "certificate is not trusted"}},
		{"no-client-cert", certUser, "tls: { ca_file: ca.pem }", "", 113, []string{"postgres", "mqbench client", "certificate"}},
		{"plain-text", certUser, "sslmode: disable", "", 113, []string{"postgres", "no encryption"}},
		{"wrong-password", pwUser, "password_env: MQB_ITEST_PG_PASSWORD, sslmode: verify-ca, tls: { ca_file: ca.pem }", "not-" + secret, 113,
			[]string{"postgres", "bench", "password authentication failed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("MQB_ITEST_PG_PASSWORD", c.password)
			name := "tls-postgres-" + c.name
			file := filepath.Join(dir, name+".yaml")
			writeFile(t, file, fmt.Sprintf(`name: %s
description: TLS with a client certificate or a SCRAM password
broker:
  type: postgres
  url: %s
  postgres: { %s }
workload: { destination: mqbench-itest-tls, warmup: 1s, duration: 3s, drain: 1s }
matrix:
  - { size: 256B, rate: 200 }
validity: { allow_dropped_iterations: true } # delivery and refusals are under test, on a shared machine
`, name, c.url, c.opts))
			checkAuthRun(t, runScenario(t, file), c.code, c.want, secret, c.password)
		})
	}
}
