package zmqdrv

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"unicode"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// checkURL: tcp://host:port, the endpoint consumer 0 binds (consumer i binds port+i).
func checkURL(raw string) error {
	_, _, err := parseEndpoint(raw)
	return err
}

// parseEndpoint splits tcp://host:port into host and port.
func parseEndpoint(raw string) (host string, port int, err error) {
	raw = strings.TrimSpace(raw)
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return "", 0, fmt.Errorf("url %q: expected tcp://host:port", raw)
	}
	if !strings.EqualFold(scheme, "tcp") {
		return "", 0, fmt.Errorf("url scheme %q is not supported (valid: tcp)", scheme)
	}
	if strings.ContainsAny(rest, "/?#@,") {
		return "", 0, fmt.Errorf("url %q: expected tcp://host:port, nothing else", raw)
	}
	h, p, err := net.SplitHostPort(rest)
	if err != nil || h == "" || p == "" {
		return "", 0, fmt.Errorf("url %q: expected tcp://host:port with a host and a port", raw)
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return "", 0, fmt.Errorf("url %q: port %q must be a number from 1 to 65535", raw, p)
	}
	return h, n, nil
}

// checkTopic: in pub-sub the destination is the topic frame SUB sockets subscribe to (a
// prefix match); refuse the empty name, which would subscribe to everything, and control
// characters.
func checkTopic(name string, _ driver.Options) error {
	if name == "" {
		return fmt.Errorf("destination is empty")
	}
	if i := strings.IndexFunc(name, unicode.IsControl); i >= 0 {
		return fmt.Errorf("destination %q has a control character at byte %d", name, i)
	}
	return nil
}
