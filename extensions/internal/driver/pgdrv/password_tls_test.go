package pgdrv

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

// libpq's default sslmode, prefer, falls back to plain text when the server declines TLS:
// a password would then cross the network in the clear (or to whoever answers). With a
// password and no sslmode said anywhere, the run requires TLS; a said sslmode stays.
func TestPasswordRequiresTLS(t *testing.T) {
	t.Setenv("PGSSLMODE", "")
	t.Setenv("PGPASSWORD", "")
	t.Setenv("MQB_TEST_PG_PW", "from-env-pw")
	for _, c := range []struct {
		name     string
		url      string
		o        Options
		pgSSL    string // PGSSLMODE
		tls      bool   // a TLS attempt
		fallback bool   // a plain-text attempt after it (or alone)
	}{
		{name: "no password: prefer, as libpq", url: "postgres://u@127.0.0.1:5432/db", tls: true, fallback: true},
		{name: "password in the url", url: "postgres://u:pw@127.0.0.1:5432/db", tls: true},
		{name: "password from password_env", url: "postgres://u@127.0.0.1:5432/db", o: Options{PasswordEnv: "MQB_TEST_PG_PW"}, tls: true},
		{name: "url sslmode=disable stays", url: "postgres://u:pw@127.0.0.1:5432/db?sslmode=disable", fallback: true},
		{name: "url sslmode=prefer stays", url: "postgres://u:pw@127.0.0.1:5432/db?sslmode=prefer", tls: true, fallback: true},
		{name: "option sslmode disable stays", url: "postgres://u:pw@127.0.0.1:5432/db", o: Options{SSLMode: SSLDisable}, fallback: true},
		{name: "PGSSLMODE=disable stays", url: "postgres://u:pw@127.0.0.1:5432/db", pgSSL: "disable", fallback: true},
		{name: "unix socket: no TLS there", url: "postgres://u:pw@/db?host=/tmp/pgsock", fallback: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("PGSSLMODE", c.pgSSL)
			o := c.o
			o.Defaults()
			cc, err := pgx.ParseConfig(c.url)
			if err != nil {
				t.Fatal(err)
			}
			if err := o.applySecurity(cc, c.url); err != nil {
				t.Fatal(err)
			}
			plain := cc.TLSConfig == nil
			for _, f := range cc.Fallbacks {
				plain = plain || f.TLSConfig == nil
			}
			if (cc.TLSConfig != nil) != c.tls || plain != c.fallback {
				t.Errorf("TLS first: %v, plain-text attempt: %v; want %v, %v", cc.TLSConfig != nil, plain, c.tls, c.fallback)
			}
		})
	}
}
