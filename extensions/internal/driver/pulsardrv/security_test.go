package pulsardrv

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// The security options' rules at validate time: each bad one names its field.
func TestSecurityOptions(t *testing.T) {
	dir := t.TempDir()
	cert, key, _ := drivertest.SelfSigned(t, dir, "t")
	tok, empty := filepath.Join(dir, "tok"), filepath.Join(dir, "empty")
	drivertest.WriteFile(t, tok, "header.payload.sig\n")
	drivertest.WriteFile(t, empty, "\n")
	cases := []struct {
		name string
		o    Options
		errs string
	}{
		{"none", Options{}, ""},
		{"token file", Options{TokenFile: tok}, ""},
		{"token env", Options{TokenEnv: "T"}, ""},
		{"both token sources", Options{TokenFile: tok, TokenEnv: "T"}, "token_file"},
		{"missing token file", Options{TokenFile: filepath.Join(dir, "nope")}, "token_file"},
		{"empty token file", Options{TokenFile: empty}, "token_file"},
		{"mutual tls", Options{TLS: &driver.TLS{CAFile: cert, CertFile: cert, KeyFile: key}}, ""},
		{"key without certificate", Options{TLS: &driver.TLS{KeyFile: key}}, "tls.cert_file"},
		{"CA that is a key", Options{TLS: &driver.TLS{CAFile: key}}, "tls.ca_file"},
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

// What the options give the connections: the token (from the file or the environment), the
// TLS configuration of pulsar+ssl:// (CA pool, client certificate, the url's host as the
// name) and of an https:// admin_url; a tls block on pulsar:// and an unset token_env are
// refused.
func TestSecurityReachesTheClient(t *testing.T) {
	dir := t.TempDir()
	cert, key, _ := drivertest.SelfSigned(t, dir, "t")
	tok := filepath.Join(dir, "tok")
	drivertest.WriteFile(t, tok, "from-the-file\n")
	t.Setenv("MQB_TEST_PULSAR_TOKEN", "from-the-env")
	mtls := &driver.TLS{CAFile: cert, CertFile: cert, KeyFile: key}

	s, err := newSecurity(&Options{TokenFile: tok, TLS: mtls}, "broker.example:6651", true, "https://admin.example:8443")
	if err != nil {
		t.Fatal(err)
	}
	if s.token != "from-the-file" || s.tls == nil || s.tls.RootCAs == nil || len(s.tls.Certificates) != 1 ||
		s.tls.ServerName != "broker.example" || s.adminTLS == nil || s.adminTLS.ServerName != "admin.example" || s.adminTransport() == nil {
		t.Errorf("mutual TLS with a token file: %+v", s)
	}
	if s, err = newSecurity(&Options{TokenEnv: "MQB_TEST_PULSAR_TOKEN"}, "h:6650", false, "http://h:8080"); err != nil || s.token != "from-the-env" || s.tls != nil || s.adminTransport() != nil {
		t.Errorf("token from the environment over plain TCP: %+v, %v", s, err)
	}
	if s.scrub("bad token from-the-env here") != "bad token *** here" {
		t.Error("scrub left the token")
	}
	if _, err := newSecurity(&Options{TLS: mtls}, "h:6650", false, "http://h:8080"); err == nil || !strings.Contains(err.Error(), "pulsar+ssl://") {
		t.Errorf("tls on pulsar://: %v", err)
	}
	if _, err := newSecurity(&Options{TokenEnv: "MQB_TEST_PULSAR_UNSET"}, "h:6650", false, "http://h:8080"); err == nil || !strings.Contains(err.Error(), "MQB_TEST_PULSAR_UNSET") {
		t.Errorf("unset token_env: %v", err)
	}
	// Open refuses before it dials anything.
	o := &Options{TLS: &driver.TLS{InsecureSkipVerify: true}}
	o.Defaults()
	if _, err := Open(context.Background(), driver.Config{URL: "pulsar://127.0.0.1:1", Destination: "x", Options: o}); err == nil || !strings.Contains(err.Error(), "not pulsar+ssl://") {
		t.Errorf("Open with tls on pulsar://: %v", err)
	}
}
