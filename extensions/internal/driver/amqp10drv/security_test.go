package amqp10drv_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/amqp10drv"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// The security options' rules, checked at validate time: each bad combination names its field.
func TestSecurityOptions(t *testing.T) {
	dir := t.TempDir()
	cert, key, _ := drivertest.SelfSigned(t, dir, "t")
	pw, empty := filepath.Join(dir, "pw"), filepath.Join(dir, "empty")
	drivertest.WriteFile(t, pw, "s3cret\n")
	drivertest.WriteFile(t, empty, "\n")
	pair := &driver.TLS{CertFile: cert, KeyFile: key, CAFile: cert}
	cases := []struct {
		name string
		o    amqp10drv.Options
		errs string // fields with problems, comma-separated
	}{
		{"plain default", amqp10drv.Options{}, ""},
		{"external", amqp10drv.Options{Auth: "external", TLS: pair}, ""},
		{"external without certificate", amqp10drv.Options{Auth: "external", TLS: &driver.TLS{CAFile: cert}}, "auth"},
		{"external without tls", amqp10drv.Options{Auth: "external"}, "auth"},
		{"external with a password", amqp10drv.Options{Auth: "external", TLS: pair, PasswordEnv: "P"}, "auth"},
		{"bad auth", amqp10drv.Options{Auth: "kerberos"}, "auth"},
		{"password file", amqp10drv.Options{PasswordFile: pw}, ""},
		{"missing password file", amqp10drv.Options{PasswordFile: filepath.Join(dir, "nope")}, "password_file"},
		{"empty password file", amqp10drv.Options{PasswordFile: empty}, "password_file"},
		{"two password sources", amqp10drv.Options{PasswordFile: pw, PasswordEnv: "P"}, "password_file"},
		{"certificate without key", amqp10drv.Options{TLS: &driver.TLS{CertFile: cert}}, "tls.key_file"},
		{"key that is no certificate", amqp10drv.Options{TLS: &driver.TLS{CertFile: key, KeyFile: key}}, "tls.cert_file"},
		{"missing CA", amqp10drv.Options{TLS: &driver.TLS{CAFile: filepath.Join(dir, "nope.pem")}}, "tls.ca_file"},
		{"hostname", amqp10drv.Options{Hostname: "vhost:bench"}, ""},
	}
	for _, c := range cases {
		o := c.o
		o.Defaults()
		var fields []string
		for _, e := range o.Validate() {
			fields = append(fields, e.Field)
		}
		if got := strings.Join(fields, ","); got != c.errs {
			t.Errorf("%s: problems in %q, want %q (%v)", c.name, got, c.errs, o.Validate())
		}
	}
}

// A tls block on an amqp:// url is refused before anything is dialled.
func TestTLSNeedsAMQPS(t *testing.T) {
	o := &amqp10drv.Options{TLS: &driver.TLS{InsecureSkipVerify: true}}
	o.Defaults()
	spec, _ := driver.Lookup("amqp10")
	_, err := spec.Open(context.Background(), driver.Config{URL: "amqp://127.0.0.1:1", Destination: "q", Options: o})
	if err == nil || !strings.Contains(err.Error(), "not amqps://") {
		t.Fatalf("err %v, want the tls block refused on an amqp:// url", err)
	}
}

// password_file reaches the client: against Artemis's test user the right file opens, a file
// with another password is an authentication refusal that names the user, not the password.
func TestArtemisPasswordFile(t *testing.T) {
	u := artemisURL(t)
	spec, _ := driver.Lookup("amqp10")
	dir := t.TempDir()
	for _, c := range []struct {
		name, password string
		ok             bool
	}{{"right", "mqbench-test", true}, {"wrong", "not-it-7f3a", false}} {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(dir, c.name)
			drivertest.WriteFile(t, f, c.password+"\n")
			o := plain(&amqp10drv.Options{PasswordFile: f})
			// The url's user with another password: the file's must replace it.
			url := strings.Replace(u, ":mqbench-test@", ":from-the-url@", 1)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			d, err := spec.Open(ctx, driver.Config{URL: url, Destination: dest(t), RunID: "t", Options: o})
			if c.ok {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				_ = d.Close()
				return
			}
			if err == nil {
				_ = d.Close()
				t.Fatal("Open succeeded with the wrong password")
			}
			if msg := err.Error(); !strings.Contains(msg, "authentication refused") || !strings.Contains(msg, `"mqbench"`) || strings.Contains(msg, c.password) {
				t.Errorf("error %q: want an authentication refusal naming the user, not the password", msg)
			}
		})
	}
}
