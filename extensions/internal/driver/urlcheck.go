package driver

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/redact"
)

// CheckHostPort checks one "host[:port]" of a broker address: a host, and a port (when
// given) that is a number from 1 to 65535. what names the address in messages.
func CheckHostPort(hostport, what string) error {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		if strings.Contains(err.Error(), "missing port") {
			host, port = strings.Trim(hostport, "[]"), ""
		} else {
			return fmt.Errorf("%s %q is not host:port", what, hostport)
		}
	}
	if host == "" {
		return fmt.Errorf("%s %q has no host", what, hostport)
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%s %q: port %q must be a number from 1 to 65535", what, hostport, port)
		}
	}
	return nil
}

// CheckURLs checks a url that may list several servers separated by commas, each
// scheme://host[:port][path] or host[:port], against the schemes allowed (the first is the
// one to suggest). Messages carry the url without credentials.
func CheckURLs(raw string, schemes ...string) error {
	parts := strings.Split(raw, ",")
	for _, part := range parts {
		p := strings.TrimSpace(part)
		shown := redact.URL(p)
		if p == "" {
			return fmt.Errorf("url %q has an empty server between commas", redact.URL(raw))
		}
		if !strings.Contains(p, "://") {
			if strings.ContainsAny(p, "/?#") {
				return fmt.Errorf("server %q: expected %s://host:port", shown, schemes[0])
			}
			if at := strings.LastIndex(p, "@"); at >= 0 {
				p = p[at+1:]
			}
			if err := CheckHostPort(p, "server"); err != nil {
				return err
			}
			continue
		}
		scheme, rest, _ := strings.Cut(p, "://")
		if !slices.Contains(schemes, strings.ToLower(scheme)) {
			return fmt.Errorf("url scheme %q is not supported (valid: %s)", scheme, strings.Join(schemes, ", "))
		}
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			rest = rest[at+1:]
		}
		if i := strings.IndexAny(rest, "/?#"); i >= 0 {
			rest = rest[:i]
		}
		if err := CheckHostPort(rest, "server"); err != nil {
			return err
		}
	}
	return nil
}
