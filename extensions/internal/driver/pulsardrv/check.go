package pulsardrv

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/redact"
)

// validName is what mqbench accepts for a tenant, namespace, topic or subscription name:
// Pulsar's rule for tenants and namespaces ([-=:.\w]+), applied to all of them so every name
// goes into an admin REST path as it is.
var validName = regexp.MustCompile(`^[-=:.\w]+$`)

func checkName(what, name string) error {
	if len(name) > 255 || !validName.MatchString(name) {
		return fmt.Errorf("%s name %q must be 1–255 of the characters a-z A-Z 0-9 _ - = : . (no /)", what, name)
	}
	return nil
}

// topic is the run's topic: its domain and its three name parts.
type topic struct {
	persistent              bool
	tenant, namespace, name string
}

// parseTopic reads the destination: "name" (tenant public, namespace default, as the
// standalone broker creates them) or "tenant/namespace/name". The domain comes from the
// options (persistent), so a destination never says it.
func parseTopic(dest string, o *Options) (topic, error) {
	t := topic{persistent: o.persistent(), tenant: "public", namespace: "default", name: dest}
	if strings.Contains(dest, "://") {
		return t, fmt.Errorf("destination %q: give the topic as name or tenant/namespace/name; the domain comes from the option persistent", dest)
	}
	if parts := strings.Split(dest, "/"); len(parts) == 3 {
		t.tenant, t.namespace, t.name = parts[0], parts[1], parts[2]
	} else if len(parts) != 1 {
		return t, fmt.Errorf("destination %q: give the topic as name or tenant/namespace/name", dest)
	}
	for _, p := range []struct{ what, v string }{{"tenant", t.tenant}, {"namespace", t.namespace}, {"topic", t.name}} {
		if err := checkName(p.what, p.v); err != nil {
			return t, err
		}
	}
	if strings.Contains(t.name, "-partition-") {
		return t, fmt.Errorf("topic name %q: -partition- is reserved for the partitions of a partitioned topic", t.name)
	}
	return t, nil
}

func (t topic) domain() string {
	if t.persistent {
		return "persistent"
	}
	return "non-persistent"
}

// String is the full topic name the client library takes.
func (t topic) String() string {
	return t.domain() + "://" + t.tenant + "/" + t.namespace + "/" + t.name
}

// path is the topic's admin REST path below /admin/v2.
func (t topic) path() string {
	return "/" + t.domain() + "/" + t.tenant + "/" + t.namespace + "/" + t.name
}

func checkTopic(name string, o driver.Options) error {
	opts, _ := o.(*Options)
	if opts == nil {
		opts = &Options{}
	}
	_, err := parseTopic(name, opts)
	return err
}

// checkURL: one broker, pulsar://host[:port] (6650, Pulsar's default, when no port) or
// pulsar+ssl://host[:port] (TLS; 6651), without credentials or path.
func checkURL(raw string) error {
	_, _, err := brokerAddress(raw)
	return err
}

// brokerAddress turns the url into the broker's host:port, and says whether it is TLS.
func brokerAddress(raw string) (addr string, tls bool, err error) {
	s := strings.TrimSpace(raw)
	if strings.Contains(s, ",") {
		return "", false, fmt.Errorf("url %s: give one broker (pulsar://host:port); several are not supported", redact.URL(raw))
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return "", false, fmt.Errorf("url %s: expected pulsar://host:port or pulsar+ssl://host:port", redact.URL(raw))
	}
	port := "6650"
	switch strings.ToLower(scheme) {
	case "pulsar":
	case "pulsar+ssl":
		tls, port = true, "6651"
	default:
		return "", false, fmt.Errorf("url scheme %q is not supported (valid: pulsar, pulsar+ssl)", scheme)
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		if strings.Trim(rest[i:], "/") != "" {
			return "", false, fmt.Errorf("url %s: pulsar://host:port takes no path or query", redact.URL(raw))
		}
		rest = rest[:i]
	}
	if strings.Contains(rest, "@") {
		return "", false, fmt.Errorf("url %s: the broker takes no credentials in the url (use token_env or token_file)", redact.URL(raw))
	}
	if err := driver.CheckHostPort(rest, "server"); err != nil {
		return "", false, err
	}
	if _, _, err := net.SplitHostPort(rest); err != nil {
		rest = net.JoinHostPort(strings.Trim(rest, "[]"), port)
	}
	return rest, tls, nil
}

// defaultAdminURL is the broker's address at port + 1430: Pulsar's own pairing of 6650 with
// 8080 (and scripts/brokers' 6750 with 8180); over TLS https:// at port + 1792, Pulsar's
// pairing of 6651 with 8443.
func defaultAdminURL(addr string, tls bool) string {
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	if tls {
		return "https://" + net.JoinHostPort(host, strconv.Itoa(p+1792))
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(p+1430))
}

func checkAdminURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s is not an http:// or https:// url", redact.URL(raw))
	}
	if u.User != nil {
		return fmt.Errorf("%s: no credentials in the url (the admin API is called with the token of token_env or token_file)", redact.URL(raw))
	}
	if strings.Trim(u.Path, "/") != "" || u.RawQuery != "" {
		return fmt.Errorf("%s: give the server only (http://host:port), no path", redact.URL(raw))
	}
	return driver.CheckHostPort(u.Host, "admin_url")
}
