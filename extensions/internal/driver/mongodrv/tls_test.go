package mongodrv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// The tls block and the password reach the client's options after the url's; the url's own
// TLS options and a password without a user are refused; no message holds the password.
func TestMongoSecurityOptions(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte("file-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MQB_TEST_MONGO_PW", "env-secret")
	cases := []struct {
		name, url string
		o         Options
		password  string // the credential's password afterwards ("": no credential change)
		tls       bool
		err       string
	}{
		{"nothing", "mongodb://127.0.0.1:27017", Options{}, "", false, ""},
		{"env password", "mongodb://bench@127.0.0.1/?authSource=q", Options{PasswordEnv: "MQB_TEST_MONGO_PW"}, "env-secret", false, ""},
		{"file password replaces the url's", "mongodb://bench:old@127.0.0.1", Options{PasswordFile: pw}, "file-secret", false, ""},
		{"tls, server name", "mongodb://127.0.0.1", Options{TLS: &driver.TLS{ServerName: "db.example"}}, "", true, ""},
		{"password without user", "mongodb://127.0.0.1", Options{PasswordEnv: "MQB_TEST_MONGO_PW"}, "", false, "needs a user in the url"},
		{"unset variable", "mongodb://u@127.0.0.1", Options{PasswordEnv: "MQB_TEST_NO_SUCH"}, "", false, "MQB_TEST_NO_SUCH, but that environment variable is not set"},
		{"url tls too", "mongodb://127.0.0.1/?tls=true&tlsCAFile=x.pem", Options{TLS: &driver.TLS{}}, "", false, "the url sets tls, tlsCAFile and the scenario a tls block"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			co := options.Client().ApplyURI(c.url)
			err := c.o.applySecurity(co, c.url)
			if (err != nil) != (c.err != "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("error %v, want %q", err, c.err)
			}
			if err != nil {
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("a password in %v", err)
				}
				return
			}
			if c.password != "" && (co.Auth == nil || co.Auth.Password != c.password || !co.Auth.PasswordSet || co.Auth.Username != "bench") {
				t.Errorf("auth %+v", co.Auth)
			}
			if c.name == "env password" && co.Auth.AuthSource != "q" {
				t.Errorf("the url's authSource lost: %+v", co.Auth)
			}
			if got := co.TLSConfig != nil; got != c.tls || (got && co.TLSConfig.ServerName != "db.example") {
				t.Errorf("tls %+v, want %v", co.TLSConfig, c.tls)
			}
		})
	}
}

// A TLS failure over TLS is the broker refusing this client; without TLS, or an error that
// is no TLS error, it is not.
func TestMongoTLSRefusal(t *testing.T) {
	tlsErr := errors.New("connection(127.0.0.1:27017[-5]) incomplete read: remote error: tls: certificate required")
	if got := tlsRefusal(true, tlsErr); got == nil {
		t.Error("a TLS alert over TLS: not a refusal")
	}
	if got := tlsRefusal(false, tlsErr); got != nil {
		t.Errorf("without TLS: %v", got)
	}
	if got := tlsRefusal(true, errors.New("dial tcp 127.0.0.1:1: connect: connection refused")); got != nil {
		t.Errorf("a refused dial over TLS: %v", got)
	}
}

// Parse-time checks of the new keys: the files are read, and one password source at most.
func TestMongoSecurityValidation(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte("p\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{TLS: &driver.TLS{CAFile: filepath.Join(dir, "none.pem")}}, "tls.ca_file"},
		{Options{TLS: &driver.TLS{CertFile: "c.pem"}}, "tls.key_file"},
		{Options{PasswordEnv: "A", PasswordFile: pw}, "password_file"},
		{Options{PasswordFile: filepath.Join(dir, "none")}, "password_file"},
	} {
		o := c.o
		o.Defaults()
		errs := o.Validate()
		if len(errs) != 1 || errs[0].Field != c.want {
			t.Errorf("%+v: %v, want one error on %s", c.o, errs, c.want)
		}
	}
}
