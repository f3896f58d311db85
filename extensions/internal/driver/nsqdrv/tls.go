package nsqdrv

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/nsqio/go-nsq"
)

// splitHTTPAddress splits option http_address into its scheme (http unless it says https)
// and host:port.
func splitHTTPAddress(s string) (scheme, hostPort string, err error) {
	scheme, hostPort, ok := strings.Cut(strings.TrimSpace(s), "://")
	if !ok {
		return "http", scheme, nil
	}
	scheme = strings.ToLower(scheme)
	if scheme != "http" && scheme != "https" {
		return "", "", fmt.Errorf("scheme %q: give host:port, http://host:port or https://host:port", scheme)
	}
	return scheme, strings.TrimRight(hostPort, "/"), nil
}

// security is the run's TLS configuration (nil without a tls block) and the auth secret
// ("" without one), read once at Open.
func (o *Options) security(addr string) (*tls.Config, string, error) {
	var c *tls.Config
	if o.TLS != nil {
		host, _, _ := net.SplitHostPort(addr)
		var err error
		if c, err = o.TLS.Config(host); err != nil {
			return nil, "", fmt.Errorf("nsq: tls: %w", err)
		}
	}
	secret, _, err := o.authSecret().Read("nsq")
	return c, secret, err
}

// applySecurity puts TLS and the auth secret into one connection's go-nsq configuration.
func applySecurity(c *nsq.Config, t *tls.Config, secret string) {
	if t != nil {
		c.TlsV1, c.TlsConfig = true, t.Clone()
	}
	c.AuthSecret = secret
}

// httpClient calls the HTTP API; over https with the run's TLS configuration.
func httpClient(t *tls.Config) *http.Client {
	c := &http.Client{Timeout: httpTimeout}
	if t != nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = t.Clone()
		c.Transport = tr
	}
	return c
}
