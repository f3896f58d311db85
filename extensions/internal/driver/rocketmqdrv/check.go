package rocketmqdrv

import (
	"fmt"
	"net"
	"regexp"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/redact"
)

// validName: RocketMQ's topic and group characters (TopicValidator) without % and |, which
// RocketMQ reserves for namespaces and retry/dead-letter topics.
var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

const (
	maxTopic = 127 // RocketMQ's TOPIC_MAX_LENGTH
	// maxGroup leaves room for the group's retry topic, "%RETRY%<group>", within maxTopic.
	maxGroup = maxTopic - len("%RETRY%")
)

func checkName(what, name string, max int) error {
	if len(name) < 1 || len(name) > max || !validName.MatchString(name) {
		return fmt.Errorf("RocketMQ %s name %q must be 1–%d characters of a-z A-Z 0-9 _ -", what, name, max)
	}
	return nil
}

// checkTopic applies RocketMQ's topic rules to the destination, and keeps the run off the
// broker's own topics.
func checkTopic(name string, _ driver.Options) error {
	if err := checkName("topic", name, maxTopic); err != nil {
		return err
	}
	if u := strings.ToUpper(name); u == "TBW102" || u == "SCHEDULE_TOPIC_XXXX" || strings.HasPrefix(u, "RMQ_SYS_") {
		return fmt.Errorf("RocketMQ topic %q is one of the broker's own", name)
	}
	return nil
}

// checkURL: the name servers, rocketmq://host[:port][,host[:port]…] (9876 when no port).
func checkURL(raw string) error {
	if err := driver.CheckURLs(raw, "rocketmq"); err != nil {
		return err
	}
	_, err := nameServers(raw)
	return err
}

// nameServers turns the url into the name servers' host:port list.
func nameServers(raw string) ([]string, error) {
	var addrs []string
	for _, part := range strings.Split(raw, ",") {
		s := strings.TrimSpace(part)
		if scheme, rest, ok := strings.Cut(s, "://"); ok {
			if !strings.EqualFold(scheme, "rocketmq") {
				return nil, fmt.Errorf("url scheme %q is not supported (valid: rocketmq)", scheme)
			}
			s = rest
		}
		if i := strings.IndexAny(s, "/?#"); i >= 0 {
			if strings.Trim(s[i:], "/") != "" {
				return nil, fmt.Errorf("url %s: rocketmq://host:port takes no path or query", redact.URL(raw))
			}
			s = s[:i]
		}
		if strings.Contains(s, "@") {
			return nil, fmt.Errorf("url %s: credentials are not supported (no ACL)", redact.URL(raw))
		}
		if err := driver.CheckHostPort(s, "name server"); err != nil {
			return nil, err
		}
		if _, _, err := net.SplitHostPort(s); err != nil {
			s = net.JoinHostPort(strings.Trim(s, "[]"), "9876")
		}
		addrs = append(addrs, s)
	}
	return addrs, nil
}

var notInName = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// groupName is the run's default consumer group: mqbench-<run id>, characters RocketMQ does
// not accept replaced by _, cut to maxGroup less room for fan-out suffixes.
func groupName(run string) string {
	n := "mqbench-" + notInName.ReplaceAllString(run, "_")
	if len(n) > maxGroup-8 {
		n = n[:maxGroup-8]
	}
	return n
}
