package mqttdrv

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/redact"
)

// maxString is MQTT's longest string (a two-byte length prefix): topics, client ids, user
// names.
const maxString = 65535

// maxIDSuffix is the longest part of a client id after its prefix: the run id (cut to
// maxRunID) and the role and number ("-s12c345").
const (
	maxRunID    = 64
	maxIDSuffix = 1 + maxRunID + 24
)

// endpoint is where a url says the broker is.
type endpoint struct {
	addr       string // host:port
	host       string
	tls        bool // mqtts:// or ssl://
	user, pass string
	hasPass    bool
}

// parseURL reads mqtt://[user[:password]@]host[:port] (tcp:// alike; port 1883) or
// mqtts://… (ssl:// alike; TLS, port 8883).
func parseURL(raw string) (endpoint, error) {
	s := strings.TrimSpace(raw)
	if strings.Contains(s, ",") {
		return endpoint{}, fmt.Errorf("url %s: give one broker (mqtt://host:port); several are not supported", redact.URL(raw))
	}
	if !strings.Contains(s, "://") {
		s = "mqtt://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return endpoint{}, fmt.Errorf("url %s is not mqtt://host:port", redact.URL(raw))
	}
	var e endpoint
	port := "1883"
	switch strings.ToLower(u.Scheme) {
	case "mqtt", "tcp":
	case "mqtts", "ssl":
		e.tls, port = true, "8883"
	default:
		return endpoint{}, fmt.Errorf("url scheme %q is not supported (valid: mqtt, mqtts, tcp, ssl)", u.Scheme)
	}
	if strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
		return endpoint{}, fmt.Errorf("url %s: mqtt://host:port takes no path or query (the topic is the destination)", redact.URL(raw))
	}
	if err := driver.CheckHostPort(u.Host, "server"); err != nil {
		return endpoint{}, err
	}
	e.host = u.Hostname()
	if p := u.Port(); p != "" {
		port = p
	}
	e.addr = net.JoinHostPort(e.host, port)
	if u.User != nil {
		e.user = u.User.Username()
		e.pass, e.hasPass = u.User.Password()
	}
	return e, nil
}

func checkURL(raw string) error {
	_, err := parseURL(raw)
	return err
}

// checkTopic applies MQTT's rules for a topic name one publishes to: 1–65535 bytes of UTF-8
// without NUL, no wildcard (+ and # are for subscriptions), not a shared-subscription filter.
// Empty levels ("a//b", "/a") are valid topic names and left alone.
func checkTopic(name string, _ driver.Options) error {
	switch {
	case name == "":
		return errors.New("MQTT topic must not be empty")
	case len(name) > maxString:
		return fmt.Errorf("MQTT topic is %d bytes, at most 65535", len(name))
	case !utf8.ValidString(name):
		return fmt.Errorf("MQTT topic %q is not UTF-8", name)
	case strings.ContainsRune(name, 0):
		return fmt.Errorf("MQTT topic %q contains a NUL character", name)
	case strings.ContainsAny(name, "+#"):
		return fmt.Errorf("MQTT topic %q contains a wildcard (+ or #): the destination is a topic to publish to, not a filter", name)
	case name == "$share" || strings.HasPrefix(name, "$share/"):
		return fmt.Errorf("MQTT topic %q is a shared-subscription filter: give the topic, and the group as mqtt.shared_group", name)
	}
	return nil
}

// checkGroup: a shared subscription's group name is one non-empty topic level without
// wildcards.
func checkGroup(g string) error {
	switch {
	case g == "":
		return errors.New(`must not be empty: a shared subscription ($share/<group>/<topic>) needs a group; leave shared_group out for mqbench-<run id>`)
	case strings.ContainsAny(g, "/+#") || strings.ContainsRune(g, 0):
		return fmt.Errorf("%q must not contain /, +, # or NUL (it is one topic level)", g)
	case len(g) > 1024:
		return fmt.Errorf("is %d bytes, at most 1024", len(g))
	}
	return nil
}

// checkClientIDPrefix refuses a prefix that makes client ids longer than any MQTT CONNECT
// can carry (65535 bytes, with the longest suffix the driver appends). MQTT 3.1.1 brokers
// only promise 23 characters; that is documented, not enforced: Mosquitto, RabbitMQ and the
// NATS server take longer ids, and the driver's own suffix is longer than 23 already.
func checkClientIDPrefix(p string) error {
	if len(p)+maxIDSuffix > maxString {
		return fmt.Errorf("is %d bytes: client ids (prefix, run id, role and number) must fit in MQTT's 65535 bytes; give at most %d", len(p), maxString-maxIDSuffix)
	}
	if !utf8.ValidString(p) || strings.ContainsRune(p, 0) {
		return fmt.Errorf("%q must be UTF-8 without NUL", p)
	}
	return nil
}

// clientID names one connection: prefix, run id, then role and number ("p3" publisher 3,
// "c1" consumer 1, "s2c5" subscription 2's consumer 5).
// The run id is cut to 64 bytes and anything but 0-9 a-z A-Z _ - becomes _: the NATS
// server refuses a client id with a '.' (its ids become subject tokens).
func clientID(prefix, run, role string) string {
	if len(run) > maxRunID {
		run = run[:maxRunID]
	}
	return prefix + notInID.ReplaceAllString(run, "_") + "-" + role
}

var notInID = regexp.MustCompile(`[^0-9a-zA-Z_-]`)

func roleID(role string, n int) string { return role + strconv.Itoa(n) }
