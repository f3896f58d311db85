package sqsdrv

import (
	"fmt"
	"net"
	"regexp"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/redact"
)

// endpoint is where the url points: an SQS-compatible server (ElasticMQ, LocalStack) or
// AWS's own SQS for the region (url "" then).
type endpoint struct {
	url  string // http://host:port or https://host:port; "" = AWS, by region
	host string // host[:port] as given, for messages; "" = AWS
}

// loopback says the endpoint is this machine (dummy credentials are allowed there only).
func (e endpoint) loopback() bool {
	if e.host == "" {
		return false
	}
	h := e.host
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// parseURL reads the broker url:
//
//	sqs://host[:port]        an SQS-compatible server over plain HTTP (ElasticMQ: sqs://127.0.0.1:9324)
//	sqs+https://host[:port]  the same over HTTPS (a VPC endpoint, a proxy)
//	sqs://                   AWS's SQS in the region (option region, AWS_REGION, AWS_DEFAULT_REGION)
//
// No path, query or credentials: credentials come from the environment only.
func parseURL(raw string) (endpoint, error) {
	s := strings.TrimSpace(raw)
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return endpoint{}, fmt.Errorf("url %q: expected sqs://host:port (an SQS-compatible server), sqs+https://host[:port], or sqs:// (AWS, by region)", redact.URL(raw))
	}
	var proto string
	switch strings.ToLower(scheme) {
	case "sqs":
		proto = "http"
	case "sqs+https":
		proto = "https"
	default:
		return endpoint{}, fmt.Errorf("url scheme %q is not supported (valid: sqs, sqs+https)", scheme)
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		if strings.Trim(rest[i:], "/") != "" {
			return endpoint{}, fmt.Errorf("url %s: takes no path or query (queue name: workload.destination, region: broker.sqs.region)", redact.URL(raw))
		}
		rest = rest[:i]
	}
	if strings.Contains(rest, "@") {
		return endpoint{}, fmt.Errorf("url %s: no credentials in the url: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment", redact.URL(raw))
	}
	if rest == "" {
		if proto == "https" {
			return endpoint{}, fmt.Errorf("url %q: sqs+https:// needs a host (sqs:// alone means AWS's SQS)", raw)
		}
		return endpoint{}, nil
	}
	if err := driver.CheckHostPort(rest, "server"); err != nil {
		return endpoint{}, err
	}
	return endpoint{url: proto + "://" + rest, host: rest}, nil
}

func checkURL(raw string) error {
	_, err := parseURL(raw)
	return err
}

// validQueue is SQS's rule for queue names: 1–80 characters of a-z A-Z 0-9 - _, a FIFO
// queue's ending in .fifo (counted in the 80).
var validQueue = regexp.MustCompile(`^[a-zA-Z0-9_-]+(\.fifo)?$`)

const fifoSuffix = ".fifo"

// checkQueue applies SQS's naming rules to the destination; a FIFO queue's name must end in
// .fifo and only a FIFO queue's may.
func checkQueue(name string, opts driver.Options) error {
	if len(name) < 1 || len(name) > 80 || !validQueue.MatchString(name) {
		return fmt.Errorf("SQS queue name %q must be 1–80 characters of a-z A-Z 0-9 - _ (a FIFO queue's ending in .fifo)", name)
	}
	o, _ := opts.(*Options)
	fifo := o != nil && o.FIFO
	switch has := strings.HasSuffix(name, fifoSuffix); {
	case fifo && !has:
		return fmt.Errorf("SQS queue name %q: a FIFO queue's name must end in .fifo", name)
	case !fifo && has:
		return fmt.Errorf("SQS queue name %q ends in .fifo: set broker.sqs.fifo: true (or drop the suffix)", name)
	}
	return nil
}

var notInName = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// runQueueName is the queue of queue_per_run: <destination>-<run id> with characters SQS
// does not accept replaced by _ and the .fifo suffix kept; a long destination is cut, not the
// run id (at most 32 characters of it), so the name stays unique per run within 80.
func runQueueName(dest, run string) string {
	base, suffix := dest, ""
	if strings.HasSuffix(dest, fifoSuffix) {
		base, suffix = strings.TrimSuffix(dest, fifoSuffix), fifoSuffix
	}
	tag := "-" + notInName.ReplaceAllString(run, "_")
	if len(tag) > 33 {
		tag = tag[:33]
	}
	if max := 80 - len(suffix) - len(tag); len(base) > max {
		base = base[:max]
	}
	return base + tag + suffix
}
