package driver

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
)

// TLS is the `tls:` block every driver whose broker speaks TLS takes, in one shape: the CA
// bundle that verifies the broker, the client certificate and key it may require (mutual
// TLS), the name the broker's certificate must carry, and the escape hatch for test brokers.
// Relative file names are read relative to the scenario file (as every `*_file` option).
type TLS struct {
	// CAFile is a PEM bundle of the certificate authorities that verify the broker's
	// certificate; empty: the system's roots.
	CAFile string `yaml:"ca_file"`
	// CertFile is the client certificate (PEM) presented to a broker that requires one; it
	// needs key_file.
	CertFile string `yaml:"cert_file"`
	// KeyFile is the client certificate's private key (PEM); it needs cert_file.
	KeyFile string `yaml:"key_file"`
	// ServerName is the name the broker's certificate must carry; empty: the url's host.
	ServerName string `yaml:"server_name"`
	// InsecureSkipVerify accepts any broker certificate (test brokers only: the connection
	// is then encrypted but not authenticated).
	InsecureSkipVerify bool `yaml:"insecure_skip_verify"`
}

// Validate reads the files now, so a missing file, a PEM that holds no certificate or a key
// that does not match its certificate is a scenario error before anything connects. prefix
// is the block's field path ("tls", "security.tls").
func (t *TLS) Validate(prefix string) []FieldError {
	if t == nil {
		return nil
	}
	var errs []FieldError
	bad := func(field, msg string) { errs = append(errs, FieldError{Field: prefix + "." + field, Msg: msg}) }
	if t.CAFile != "" {
		if _, err := t.pool(); err != nil {
			bad("ca_file", err.Error())
		}
	}
	switch {
	case t.CertFile != "" && t.KeyFile == "":
		bad("key_file", "required with cert_file (the client certificate's private key)")
	case t.CertFile == "" && t.KeyFile != "":
		bad("cert_file", "required with key_file (the client certificate)")
	case t.CertFile != "":
		if _, field, err := t.pair(); err != nil {
			bad(field, err.Error())
		}
	}
	return errs
}

func (t *TLS) pool() (*x509.CertPool, error) {
	pem, err := os.ReadFile(t.CAFile)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", t.CAFile, unwrapPath(err))
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", t.CAFile)
	}
	return pool, nil
}

// pair loads the client certificate; on failure it also names the field at fault.
func (t *TLS) pair() (tls.Certificate, string, error) {
	for _, f := range []struct{ field, path string }{{"cert_file", t.CertFile}, {"key_file", t.KeyFile}} {
		if _, err := os.Stat(f.path); err != nil {
			return tls.Certificate{}, f.field, fmt.Errorf("cannot read %s: %v", f.path, unwrapPath(err))
		}
	}
	c, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
	if err != nil {
		// The standard library says what is wrong ("private key does not match public key",
		// "failed to find any PEM data in certificate input"); say which files.
		return tls.Certificate{}, "cert_file", fmt.Errorf("%s with key %s: %v", t.CertFile, t.KeyFile, err)
	}
	return c, "", nil
}

// Config is the client TLS configuration; serverHost (the url's host) is the default name.
// It re-reads the files (Validate read them at parse time; they may have been replaced).
func (t *TLS) Config(serverHost string) (*tls.Config, error) {
	c := &tls.Config{ServerName: serverHost, InsecureSkipVerify: t.InsecureSkipVerify, MinVersion: tls.VersionTLS12} //nolint:gosec // the scenario asked for it
	if t.ServerName != "" {
		c.ServerName = t.ServerName
	}
	if t.CAFile != "" {
		pool, err := t.pool()
		if err != nil {
			return nil, err
		}
		c.RootCAs = pool
	}
	if t.CertFile != "" {
		pair, _, err := t.pair()
		if err != nil {
			return nil, err
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}

// unwrapPath drops the path os errors repeat ("open /x: no such file" → "no such file").
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// TLSRefused tells a broker that refused this client's TLS from one that is not there: a
// server that requires a client certificate and gets none (or one it does not trust) closes
// the connection right after the handshake, so the client's next read or write fails (EOF,
// broken pipe), which looks like an unreachable broker. Over TLS (on), any failure but the
// dial itself, once a handshake was tried, is the broker refusing this client.
func TLSRefused(on bool, err error) bool {
	var op *net.OpError
	if !on || err == nil || (errors.As(err, &op) && op.Op == "dial") {
		return false
	}
	return strings.Contains(strings.ToLower(err.Error()), "tls") || errors.Is(err, io.EOF) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}
