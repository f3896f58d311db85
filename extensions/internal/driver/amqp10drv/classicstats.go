package amqp10drv

import (
	"context"
	"errors"
	"fmt"
	"strings"

	amqp "github.com/Azure/go-amqp"
)

// ActiveMQ Classic's statistics plugin (StatisticsBrokerPlugin, enabled in the broker that
// scripts/brokers/activemq.sh starts) answers a message sent to
// ActiveMQ.Statistics.Destination.<name> with the destination's figures, a map, at the
// request's reply-to address. Its "size" is the queue's QueueSize: every message not yet
// acknowledged, those dispatched to a consumer (inflightCount: in its link credit, in the
// client's buffer, in its callback) included. It rides the driver's own AMQP connection and
// login: no JMX, Jolokia or web console, none of which the embedded broker runs. A broker
// without the plugin keeps the request as an ordinary message until its TTL drops it, and
// never answers: the read then times out, and nothing is excused.
const (
	classicStatsPrefix = "ActiveMQ.Statistics.Destination."
	// classicStatsEnd asks for an empty map after the figures, so a name that matches no
	// destination is answered (an empty map) instead of left unanswered, and the end of an
	// answer is known (none of it is left for the next request).
	classicStatsEnd = "ActiveMQ.Statistics.Destination.List.End.With.Null"
)

// classicQueueSize asks ActiveMQ Classic's statistics plugin for the destination queue's
// size over the admin connection. A queue that does not exist holds nothing: 0.
func (d *amqpDriver) classicQueueSize(ctx context.Context) (int64, error) {
	if strings.ContainsAny(d.queue, "*>") {
		// Wildcards in the name would match other queues too.
		return 0, fmt.Errorf("queue name %q has a wildcard (* or >) the statistics plugin would expand", d.queue)
	}
	m, err := d.ask(ctx, "queue://"+classicStatsPrefix+d.queue, &amqp.Message{
		ApplicationProperties: map[string]any{classicStatsEnd: true},
		Value:                 "",
	}, endOfStats)
	if errors.Is(err, context.DeadlineExceeded) {
		return 0, fmt.Errorf("%w (a broker without the statistics plugin, StatisticsBrokerPlugin, never answers)", err)
	}
	if err != nil {
		return 0, err
	}
	return parseClassicSize(m[0], "queue://"+d.queue)
}

// endOfStats says whether m ends the plugin's answer: the empty map it sends after the
// figures of every destination that matched (classicStatsEnd).
func endOfStats(m *amqp.Message) bool {
	switch v := m.Value.(type) {
	case map[string]any:
		return len(v) == 0
	case map[any]any:
		return len(v) == 0
	}
	return true // not the plugin's: parseClassicSize says what came
}

// parseClassicSize reads the statistics plugin's answer for destination: its "size", or 0
// for the empty map that ends an answer matching no destination.
func parseClassicSize(m *amqp.Message, destination string) (int64, error) {
	fields := map[string]any{}
	switch v := m.Value.(type) {
	case map[string]any:
		fields = v
	case map[any]any:
		for k, x := range v {
			if s, ok := k.(string); ok {
				fields[s] = x
			}
		}
	default:
		return 0, fmt.Errorf("statistics answer: unexpected body %T (want a map)", m.Value)
	}
	if len(fields) == 0 {
		return 0, nil // no such destination: it holds nothing
	}
	if name, _ := fields["destinationName"].(string); name != destination {
		return 0, fmt.Errorf("statistics answer for %q, asked for %q", name, destination)
	}
	var n int64
	switch v := fields["size"].(type) {
	case int64:
		n = v
	case int32:
		n = int64(v)
	case int:
		n = int64(v)
	default:
		return 0, fmt.Errorf("statistics answer: size is %T %v, not a count", v, v)
	}
	if n < 0 {
		return 0, fmt.Errorf("statistics answer: size %d", n)
	}
	return n, nil
}
