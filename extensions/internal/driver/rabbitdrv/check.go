package rabbitdrv

import (
	"fmt"
	"strings"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/redact"
)

// checkURL: amqp:// or amqps://user:password@host:port/vhost, as the client parses it.
func checkURL(raw string) error {
	if err := driver.CheckURLs(raw, "amqp", "amqps"); err != nil {
		return err
	}
	if strings.Contains(raw, ",") {
		return fmt.Errorf("url %s lists several servers; the RabbitMQ client connects to one", redact.URL(raw))
	}
	if _, err := amqp.ParseURI(raw); err != nil {
		// The client's message may quote the url: it may carry a password.
		return fmt.Errorf("url %s: %s", redact.URL(raw), redact.Text(err.Error(), raw))
	}
	return nil
}

// checkQueueName applies RabbitMQ's rules to the queue name: at most 255 bytes of UTF-8,
// and not "amq." (reserved for the broker's own; declaring one is refused).
func checkQueueName(name string, _ driver.Options) error {
	if len(name) > 255 {
		return fmt.Errorf("queue name is %d bytes long; RabbitMQ allows at most 255", len(name))
	}
	if strings.HasPrefix(name, "amq.") {
		return fmt.Errorf("queue name %q starts with \"amq.\", which RabbitMQ reserves for its own queues", name)
	}
	return nil
}
