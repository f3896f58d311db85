package itest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A private FerretDB (v1.24.0, on its own PostgreSQL) that serves TLS only, requires a client
// certificate signed by the test CA (--listen-tls-ca-file) and SCRAM authentication (its
// --test-enable-new-auth, with a user created at start): the right settings run (received ==
// sent); a wrong CA, a missing client certificate, a wrong password and no user at all are
// refused (113) naming the broker and what was refused; the password appears in no output.
func TestMongoTLSAndSCRAM(t *testing.T) {
	k6Binary(t)
	dir := t.TempDir()
	p := newPKI(t, dir)
	const secret = "ferret-scram-pw-never-printed"
	// PostgreSQL runs as the postgres user, which cannot enter go test's 0700 temp dirs.
	state := postgresStateDir(t)
	env := append(os.Environ(), "MQBENCH_STATE="+state, "POSTGRES_PORT=15562", "FERRETDB_PORT=27317", "FERRETDB_DEBUG_PORT=28288",
		"FERRETDB_TLS_CERT="+p.serverCert, "FERRETDB_TLS_KEY="+p.serverKey, "FERRETDB_TLS_CA="+p.caFile,
		"FERRETDB_AUTH_USER=bench", "FERRETDB_SETUP_PASSWORD="+secret)
	pg := &privateBroker{t: t, name: "postgres", env: env}
	fd := &privateBroker{t: t, name: "ferretdb", env: env}
	pg.script("start.sh")
	t.Cleanup(func() { pg.script("stop.sh") })
	fd.script("start.sh")
	t.Cleanup(func() { fd.script("stop.sh") }) // before PostgreSQL's (cleanups run last first)

	const user, anonymous = "mongodb://bench@127.0.0.1:27317/?authSource=mqbench", "mongodb://127.0.0.1:27317"
	client := "tls: { ca_file: ca.pem, cert_file: client.pem, key_file: client-key.pem }"
	cases := []struct {
		name, url, opts, password string
		code                      int
		want                      []string
	}{
		{"ok", user, "password_env: MQB_ITEST_MONGO_PASSWORD, " + client, secret, 0, nil},
		{"wrong-ca", user, "password_env: MQB_ITEST_MONGO_PASSWORD, tls: { ca_file: other-ca.pem, cert_file: client.pem, key_file: client-key.pem }", secret, 113,
			[]string{"mongodb", "127.0.0.1:27317", "TLS refused", "certificate signed by unknown authority"}},
		{"no-client-cert", user, "password_env: MQB_ITEST_MONGO_PASSWORD, tls: { ca_file: ca.pem }", secret, 113,
			[]string{"mongodb", "127.0.0.1:27317", "TLS refused", "certificate"}},
		{"wrong-password", user, "password_env: MQB_ITEST_MONGO_PASSWORD, " + client, "not-" + secret, 113,
			[]string{"mongodb", `authentication failed for user "bench" at 127.0.0.1:27317`}},
		{"no-user", anonymous, client, "", 113, []string{"mongodb", "requires authentication"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("MQB_ITEST_MONGO_PASSWORD", c.password)
			name := "tls-mongodb-" + c.name
			file := filepath.Join(dir, name+".yaml")
			writeFile(t, file, fmt.Sprintf(`name: %s
description: TLS with a client certificate and a SCRAM user
broker:
  type: mongodb
  url: %s
  # Group commit: Send returns at once, so a slow insert on a busy machine does not hold up
  # k6's schedule (dropped iterations).
  mongodb: { order: natural, insert_batch: 100, %s }
workload: { destination: mqbench-itest-tls, warmup: 1s, duration: 3s, drain: 1s }
matrix:
  - { size: 256B, rate: 100 }
validity: { allow_dropped_iterations: true } # delivery and refusals are under test, on a shared machine
`, name, c.url, c.opts))
			checkAuthRun(t, runScenario(t, file), c.code, c.want, secret, c.password)
		})
	}
}
