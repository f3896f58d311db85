package amqp10drv

import (
	"fmt"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/redact"
)

// checkURL: amqp:// or amqps://[user:password@]host[:port], one server.
func checkURL(raw string) error {
	if !strings.Contains(raw, "://") {
		return fmt.Errorf("url %s: expected amqp://host:port or amqps://host:port", redact.URL(raw))
	}
	if err := driver.CheckURLs(raw, "amqp", "amqps"); err != nil {
		return err
	}
	if strings.Contains(raw, ",") {
		return fmt.Errorf("url %s lists several servers; the AMQP 1.0 client connects to one", redact.URL(raw))
	}
	return nil
}

// checkDestination: RabbitMQ's queue-name rules with the rabbitmq address styles (at most 255
// bytes, not "amq."); with plain and activemq, at most 255 bytes and no empty name.
func checkDestination(name string, opts driver.Options) error {
	if name == "" {
		return fmt.Errorf("destination is empty")
	}
	if len(name) > 255 {
		return fmt.Errorf("destination is %d bytes long; at most 255 are allowed", len(name))
	}
	if o, ok := opts.(*Options); ok && (o.Address == AddressPlain || o.Address == AddressActiveMQ) {
		return nil
	}
	if strings.HasPrefix(name, "amq.") {
		return fmt.Errorf("queue name %q starts with \"amq.\", which RabbitMQ reserves for its own queues", name)
	}
	if strings.Contains(name, "/") {
		return fmt.Errorf("queue name %q contains \"/\", which the RabbitMQ address /queue/<name> cannot carry", name)
	}
	return nil
}
