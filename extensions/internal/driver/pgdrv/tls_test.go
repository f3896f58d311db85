package pgdrv

import (
	"crypto/tls"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// sslmode against the tls block and the password's sources, at parse time.
func TestSecurityValidation(t *testing.T) {
	dir := t.TempDir()
	ca, _, _ := drivertest.SelfSigned(t, dir, "ca", "db.example")
	cases := []struct {
		name string
		o    Options
		want string // "field: message" part; "" = valid
	}{
		{"nothing", Options{}, ""},
		{"tls block alone", Options{TLS: &driver.TLS{CAFile: ca}}, ""},
		{"require, no block", Options{SSLMode: SSLRequire}, ""},
		{"unknown mode", Options{SSLMode: "prefer"}, "sslmode: must be disable, require, verify-ca or verify-full"},
		{"disable with tls", Options{SSLMode: SSLDisable, TLS: &driver.TLS{CAFile: ca}}, "tls: not with sslmode disable"},
		{"verify-full skipping verification", Options{SSLMode: SSLVerifyFull, TLS: &driver.TLS{InsecureSkipVerify: true}}, "tls.insecure_skip_verify: contradicts sslmode verify-full"},
		{"require skipping verification", Options{SSLMode: SSLRequire, TLS: &driver.TLS{InsecureSkipVerify: true}}, ""},
		{"missing ca", Options{TLS: &driver.TLS{CAFile: filepath.Join(dir, "none.pem")}}, "tls.ca_file: cannot read"},
		{"both password sources", Options{PasswordEnv: "X", PasswordFile: ca}, "password_file: not with password_env"},
		{"missing password file", Options{PasswordFile: filepath.Join(dir, "pw")}, "password_file: cannot read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.Defaults()
			var got []string
			for _, e := range o.Validate() {
				got = append(got, e.Field+": "+e.Msg)
			}
			all := strings.Join(got, "; ")
			if (c.want == "") != (len(got) == 0) || !strings.Contains(all, c.want) || len(got) > 1 {
				t.Errorf("errors %q, want one with %q", all, c.want)
			}
		})
	}
	o := Options{TLS: &driver.TLS{}}
	o.Defaults()
	if o.SSLMode != SSLVerifyFull {
		t.Errorf("a tls block without sslmode: %q, want verify-full", o.SSLMode)
	}
}

// Each sslmode becomes the TLS settings libpq gives it; the url's own ssl parameters and the
// scenario's never mix.
func TestSSLModeMapping(t *testing.T) {
	dir := t.TempDir()
	ca, _, caDER := drivertest.SelfSigned(t, dir, "ca", "db.example")
	_, _, otherDER := drivertest.SelfSigned(t, dir, "other", "db.example")
	cases := []struct {
		mode       string
		tls        *driver.TLS
		none, skip bool   // no TLS config; InsecureSkipVerify
		chain      []byte // with a VerifyPeerCertificate: this chain passes, caDER's opposite fails
	}{
		{mode: SSLDisable, none: true},
		{mode: SSLRequire, skip: true},
		{mode: SSLRequire, tls: &driver.TLS{CAFile: ca}, skip: true, chain: caDER}, // libpq: require + root cert = verify-ca
		{mode: SSLVerifyCA, tls: &driver.TLS{CAFile: ca}, skip: true, chain: caDER},
		{mode: SSLVerifyFull, tls: &driver.TLS{CAFile: ca, ServerName: "db.example"}},
	}
	for _, c := range cases {
		o := Options{SSLMode: c.mode, TLS: c.tls}
		cc, err := pgx.ParseConfig("postgres://u@127.0.0.1:5432/db")
		if err != nil {
			t.Fatal(err)
		}
		if err := o.applySecurity(cc, "postgres://u@127.0.0.1:5432/db"); err != nil {
			t.Fatalf("%s: %v", c.mode, err)
		}
		got := cc.TLSConfig
		if c.none {
			if got != nil || len(cc.Fallbacks) != 0 {
				t.Errorf("%s: TLS %v, fallbacks %d", c.mode, got, len(cc.Fallbacks))
			}
			continue
		}
		if got == nil || got.InsecureSkipVerify != c.skip || len(cc.Fallbacks) != 0 || !tlsOnly(cc) {
			t.Fatalf("%s: %+v, %d fallbacks", c.mode, got, len(cc.Fallbacks))
		}
		if c.mode == SSLVerifyFull && (got.ServerName != "db.example" || got.RootCAs == nil || got.VerifyPeerCertificate != nil) {
			t.Errorf("verify-full: name %q, roots %v", got.ServerName, got.RootCAs)
		}
		if (got.VerifyPeerCertificate != nil) != (c.chain != nil) {
			t.Errorf("%s (%+v): chain check %v", c.mode, c.tls, got.VerifyPeerCertificate != nil)
		}
		if c.chain != nil {
			if err := got.VerifyPeerCertificate([][]byte{c.chain}, nil); err != nil {
				t.Errorf("%s: the CA's own certificate refused: %v", c.mode, err)
			}
			var ve *tls.CertificateVerificationError
			if err := got.VerifyPeerCertificate([][]byte{otherDER}, nil); !errors.As(err, &ve) {
				t.Errorf("%s: another CA's certificate: %v, want a CertificateVerificationError", c.mode, err)
			}
		}
	}
	cc, _ := pgx.ParseConfig("postgres://u@127.0.0.1/db?sslmode=require")
	o := Options{SSLMode: SSLVerifyFull}
	if err := o.applySecurity(cc, "postgres://u@127.0.0.1/db?sslmode=require&sslrootcert=x"); err == nil || !strings.Contains(err.Error(), "sslmode, sslrootcert") {
		t.Errorf("url and scenario both set TLS: %v", err)
	}
	// Without sslmode the url's prefer stays (its plain-text fallback: not TLS-only).
	cc, _ = pgx.ParseConfig("postgres://u@127.0.0.1/db")
	if err := (&Options{}).applySecurity(cc, "postgres://u@127.0.0.1/db"); err != nil || tlsOnly(cc) {
		t.Errorf("prefer: %v, TLS-only %v", err, tlsOnly(cc))
	}
}
