package mongodrv

import (
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
)

// applySecurity puts the tls block and the password (password_env, password_file) into the
// client's options, after the url's: the user, authSource and authMechanism stay the url's.
func (o *Options) applySecurity(co *options.ClientOptions, rawURL string) error {
	if o.TLS != nil {
		if p := urlTLSParams(rawURL); len(p) > 0 {
			return fmt.Errorf("mongodb: the url sets %s and the scenario a tls block: give TLS settings one way", strings.Join(p, ", "))
		}
		// No default name: the client names each host it connects to.
		c, err := o.TLS.Config("")
		if err != nil {
			return fmt.Errorf("mongodb: tls: %w", err)
		}
		co.SetTLSConfig(c)
	}
	pw, ok, err := o.password().Read("mongodb")
	if err != nil || !ok {
		return err
	}
	if co.Auth == nil || co.Auth.Username == "" {
		return errors.New("mongodb: a password from password_env or password_file needs a user in the url (mongodb://user@host/)")
	}
	co.Auth.Password, co.Auth.PasswordSet = pw, true
	return nil
}

// urlUser is the url's user name ("" without one), for messages.
func urlUser(rawURL string) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || u.User == nil {
		return ""
	}
	return u.User.Username()
}

// urlTLSParams lists the url's TLS options (tls, ssl, tlsCAFile, tlsInsecure…), which the
// tls block replaces.
func urlTLSParams(rawURL string) []string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return nil
	}
	var out []string
	for k := range u.Query() {
		if l := strings.ToLower(k); strings.HasPrefix(l, "tls") || strings.HasPrefix(l, "ssl") {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// tlsRefusal is the TLS error behind a failed connect over TLS (a certificate not trusted, a
// client certificate missing or refused), or nil. The client reports it as the last error of
// a server it could not select, which is otherwise an unreachable server.
func tlsRefusal(on bool, err error) error {
	if !on || err == nil {
		return nil
	}
	var sse topology.ServerSelectionError
	if errors.As(err, &sse) {
		for _, s := range sse.Desc.Servers {
			if s.LastError != nil && isTLSText(s.LastError.Error()) {
				return innermostTLS(s.LastError)
			}
		}
		return nil
	}
	if isTLSText(err.Error()) {
		return innermostTLS(err)
	}
	return nil
}

// innermostTLS is the deepest error in err's chain that still speaks of TLS: the client's
// wrappers repeat the connection's name, some twice.
func innermostTLS(err error) error {
	last := err
	for e := errors.Unwrap(err); e != nil; e = errors.Unwrap(e) {
		if isTLSText(e.Error()) {
			last = e
		}
	}
	return last
}

func isTLSText(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "tls:") || strings.Contains(s, "x509:") || strings.Contains(s, "certificate")
}
