package pulsardrv

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// probeTimeout bounds Open's lookup through the binary protocol: long enough for a TLS
// handshake and the CONNECT exchange on a loaded machine, short enough that a refused one
// (which the client library retries) is reported without waiting for operationTimeout.
const probeTimeout = 5 * time.Second

// security is what a run's connections authenticate with: the TLS configuration of a
// pulsar+ssl:// url (and of an https:// admin_url) and the token of token_env or token_file.
type security struct {
	tls      *tls.Config // nil: pulsar://
	adminTLS *tls.Config // nil: http:// admin_url
	token    string      // never printed
}

// newSecurity reads the token and builds the TLS configurations.
func newSecurity(o *Options, addr string, useTLS bool, adminURL string) (security, error) {
	var s security
	if o.TLS != nil && !useTLS {
		return s, errors.New("pulsar: tls is set but the url is not pulsar+ssl:// (the TLS port, 6651 by default)")
	}
	token, _, err := o.token().Read("pulsar")
	if err != nil {
		return s, err
	}
	s.token = strings.TrimSpace(token) // a token holds no white space; a file may end in some
	t := o.TLS
	if t == nil {
		t = &driver.TLS{} // the system's roots, the url's host
	}
	host := addr[:strings.LastIndex(addr, ":")]
	if useTLS {
		c, err := t.Config(strings.Trim(host, "[]"))
		if err != nil {
			return s, fmt.Errorf("pulsar: tls: %w", err)
		}
		s.tls = c
	}
	if u, err := url.Parse(adminURL); err == nil && u.Scheme == "https" {
		c, err := t.Config(u.Hostname())
		if err != nil {
			return s, fmt.Errorf("pulsar: tls: %w", err)
		}
		s.adminTLS = c
	}
	return s, nil
}

// adminTransport is the admin REST API's transport: the default one, with the TLS
// configuration for an https:// admin_url.
func (s security) adminTransport() http.RoundTripper {
	if s.adminTLS == nil {
		return nil
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = s.adminTLS
	return tr
}

// scrub removes the token from a message.
func (s security) scrub(msg string) string {
	if s.token != "" {
		msg = strings.ReplaceAll(msg, s.token, "***")
	}
	return msg
}

// probe looks the topic up through the binary protocol, which makes the client connect: a
// TLS handshake the broker refuses, a broker certificate this side refuses, or a token the
// broker refuses comes out here, named, rather than as a timeout of the first publisher.
func (d *pulsarDriver) probe(ctx context.Context) error {
	c, err := d.newClientTimeout(probeTimeout)
	if err != nil {
		return err
	}
	defer c.Close()
	done := make(chan error, 1)
	go func() { _, err := c.TopicPartitions(d.topic.String()); done <- err }()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case err = <-done:
	}
	if err == nil {
		return nil
	}
	if d.sec.tls != nil {
		// The library reports a refused handshake as "connection error": repeat the
		// handshake alone to learn why.
		if herr := d.handshake(ctx); herr != nil {
			return d.classify(herr)
		}
	}
	return d.classify(err)
}

// handshake makes one TLS connection to the broker and waits briefly for the broker's
// verdict: with TLS 1.3 a broker that wants a client certificate and got none (or one it
// does not trust) says so in an alert after the client's side of the handshake completed.
// Nil: the broker accepted the handshake (and waits for the client's first command).
func (d *pulsarDriver) handshake(ctx context.Context) error {
	conn, err := (&net.Dialer{Timeout: dialTimeout}).DialContext(ctx, "tcp", d.addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	tc := tls.Client(conn, d.sec.tls.Clone())
	_ = tc.SetDeadline(time.Now().Add(probeTimeout))
	if err := tc.HandshakeContext(ctx); err != nil {
		return err
	}
	_ = tc.SetReadDeadline(time.Now().Add(time.Second))
	var b [1]byte
	_, err = tc.Read(b[:])
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return nil
	}
	if err == nil {
		return nil // the broker spoke first; not a refusal of this handshake
	}
	return err
}

// classify names what refused the connection; the token never appears.
func (d *pulsarDriver) classify(err error) error {
	msg := d.sec.scrub(err.Error())
	var verr *tls.CertificateVerificationError
	low := strings.ToLower(msg)
	switch {
	case errors.As(err, &verr) || strings.Contains(low, "x509:") || strings.Contains(low, "failed to verify certificate"):
		return fmt.Errorf("pulsar: the TLS certificate of %s was refused (not signed by a trusted CA, or not for this name): %s", d.addr, msg)
	case strings.Contains(low, "authenticat") || strings.Contains(low, "unauthorized"):
		return fmt.Errorf("pulsar: %s refused the token (authentication): %s", d.addr, msg)
	case driver.TLSRefused(d.sec.tls != nil, err):
		return fmt.Errorf("pulsar: %s refused the TLS connection: %s", d.addr, msg)
	}
	return fmt.Errorf("pulsar: %s: %s", d.addr, msg)
}
