package nsqdrv

import (
	"fmt"
	"net"
	"regexp"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/redact"
)

// validName is nsqd's rule for topic and channel names (protocol.IsValidTopicName): 1–64
// characters in all, the #ephemeral suffix included.
var validName = regexp.MustCompile(`^[.a-zA-Z0-9_-]+(#ephemeral)?$`)

const ephemeral = "#ephemeral"

func checkName(what, name string) error {
	if len(name) < 1 || len(name) > 64 || !validName.MatchString(name) {
		return fmt.Errorf("NSQ %s name %q must be 1–64 characters of . a-z A-Z 0-9 _ -, optionally ending in #ephemeral", what, name)
	}
	return nil
}

// checkURL: one nsqd, nsq://host[:port] or host[:port] (its TCP protocol port).
func checkURL(raw string) error {
	if strings.Contains(raw, ",") {
		return fmt.Errorf("url %s: give one nsqd (nsq://host:port); several are not supported", redact.URL(raw))
	}
	if err := driver.CheckURLs(raw, "nsq"); err != nil {
		return err
	}
	_, err := tcpAddress(raw)
	return err
}

// checkTopic applies nsqd's topic naming rules to the destination.
func checkTopic(name string, _ driver.Options) error { return checkName("topic", name) }

// tcpAddress turns the url into nsqd's TCP address, host:port (4150, nsqd's default, when
// the url has no port).
func tcpAddress(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if scheme, rest, ok := strings.Cut(s, "://"); ok {
		if !strings.EqualFold(scheme, "nsq") {
			return "", fmt.Errorf("url scheme %q is not supported (valid: nsq)", scheme)
		}
		s = rest
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		if strings.Trim(s[i:], "/") != "" {
			return "", fmt.Errorf("url %s: nsq://host:port takes no path or query", redact.URL(raw))
		}
		s = s[:i]
	}
	if strings.Contains(s, "@") {
		return "", fmt.Errorf("url %s: nsqd takes no credentials in the url", redact.URL(raw))
	}
	if err := driver.CheckHostPort(s, "server"); err != nil {
		return "", err
	}
	if _, _, err := net.SplitHostPort(s); err != nil {
		s = net.JoinHostPort(strings.Trim(s, "[]"), "4150")
	}
	return s, nil
}
