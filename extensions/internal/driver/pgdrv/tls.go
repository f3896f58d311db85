package pgdrv

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// libpq's sslmode values the driver takes (allow and prefer, which fall back to plain text,
// stay the url's business: a scenario that asks for TLS gets TLS or an error).
const (
	SSLDisable    = "disable"
	SSLRequire    = "require"
	SSLVerifyCA   = "verify-ca"
	SSLVerifyFull = "verify-full"
)

// validateSecurity checks sslmode against the tls block and the password's sources.
func (o *Options) validateSecurity() []driver.FieldError {
	var errs []driver.FieldError
	bad := func(field, msg string) { errs = append(errs, driver.FieldError{Field: field, Msg: msg}) }
	switch o.SSLMode {
	case "", SSLRequire:
	case SSLDisable:
		if o.TLS != nil {
			bad("tls", "not with sslmode disable")
		}
	case SSLVerifyCA, SSLVerifyFull:
		if o.TLS != nil && o.TLS.InsecureSkipVerify {
			bad("tls.insecure_skip_verify", "contradicts sslmode "+o.SSLMode+" (sslmode require encrypts without verifying)")
		}
	default:
		bad("sslmode", "must be disable, require, verify-ca or verify-full, got "+strconv.Quote(o.SSLMode))
	}
	errs = append(errs, o.TLS.Validate("tls")...)
	return append(errs, o.password().Check()...)
}

// password is where the scenario says the password comes from.
func (o *Options) password() driver.SecretSource {
	return driver.SecretSource{EnvField: "password_env", Env: o.PasswordEnv, FileField: "password_file", File: o.PasswordFile}
}

// applySecurity puts the options' TLS settings and password into cc (parsed from rawURL).
func (o *Options) applySecurity(cc *pgx.ConnConfig, rawURL string) error {
	if o.SSLMode != "" {
		if p := urlSSLParams(rawURL); len(p) > 0 {
			return fmt.Errorf("postgres: the url sets %s and the scenario sets sslmode: give TLS settings one way", strings.Join(p, ", "))
		}
		c, err := o.tlsConfig(cc.Host)
		if err != nil {
			return fmt.Errorf("postgres: tls: %w", err)
		}
		cc.TLSConfig = c
		cc.Fallbacks = nil // prefer's plain-text retry: never, once the scenario chose
	}
	pw, ok, err := o.password().Read("postgres")
	if err != nil {
		return err
	}
	if ok {
		cc.Password = pw
	}
	return o.requireTLSForPassword(cc, rawURL)
}

// urlSSLParams lists the url's ssl* query parameters (sslmode, sslrootcert, sslcert…).
func urlSSLParams(rawURL string) []string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return nil
	}
	var out []string
	for k := range u.Query() {
		if strings.HasPrefix(strings.ToLower(k), "ssl") {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// tlsConfig maps sslmode and the tls block to Go's TLS settings as libpq reads them; nil
// with sslmode disable. host is the url's (verify-full's default name).
func (o *Options) tlsConfig(host string) (*tls.Config, error) {
	if o.SSLMode == SSLDisable {
		return nil, nil
	}
	c := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	if o.TLS != nil {
		var err error
		if c, err = o.TLS.Config(host); err != nil {
			return nil, err
		}
	}
	mode := o.SSLMode
	if mode == SSLRequire && o.TLS != nil && o.TLS.CAFile != "" && !o.TLS.InsecureSkipVerify {
		mode = SSLVerifyCA // libpq: require with a root certificate verifies it
	}
	switch mode {
	case SSLRequire:
		c.InsecureSkipVerify = true //nolint:gosec // sslmode require: encrypted, not authenticated
	case SSLVerifyCA:
		// The chain is checked by hand, the name not at all: Go's verification does both or
		// neither.
		roots := c.RootCAs
		c.InsecureSkipVerify = true //nolint:gosec // replaced by verifyChain
		c.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error { return verifyChain(raw, roots) }
	}
	return c, nil
}

// verifyChain checks that the server's certificate chains to roots (nil: the system's).
func verifyChain(raw [][]byte, roots *x509.CertPool) error {
	if len(raw) == 0 {
		return errors.New("the server sent no certificate")
	}
	certs := make([]*x509.Certificate, len(raw))
	for i, r := range raw {
		c, err := x509.ParseCertificate(r)
		if err != nil {
			return fmt.Errorf("the server's certificate does not parse: %w", err)
		}
		certs[i] = c
	}
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	_, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
	if err != nil {
		// The type Go's own verification fails with, so one test classifies both.
		return &tls.CertificateVerificationError{UnverifiedCertificates: certs, Err: err}
	}
	return nil
}
