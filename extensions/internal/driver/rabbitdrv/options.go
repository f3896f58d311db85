package rabbitdrv

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

const defaultPrefetch = 200

// Options is the scenario's `broker.rabbitmq` block.
type Options struct {
	// QueueType is classic, quorum or stream (the x-queue-type of a queue the run declares).
	QueueType string `yaml:"queue_type"`
	// Durable declares the queue (and exchange) durable; default true, and required by quorum
	// and stream queues.
	Durable *bool `yaml:"durable"`
	// Persistent publishes with delivery mode 2 (persisted to disk); default true.
	Persistent *bool `yaml:"persistent"`
	// Confirms puts each publisher's channel in confirm mode, so publish latency waits for the
	// broker's basic.ack; default true. Without it a Send returns no Ack (fire-and-forget).
	Confirms *bool `yaml:"confirms"`
	// Mandatory publishes with the mandatory flag: a message no queue receives is returned by
	// the broker and its Ack fails. Needs confirms.
	Mandatory bool `yaml:"mandatory"`
	// Exchange to publish to; "" is the default exchange (routing key = queue name). A named
	// exchange is declared (when absent) and the queue is bound to it with RoutingKey. With
	// several subscriptions (fan-out), each subscription has its own queue (the destination,
	// then <destination>.s1, .s2, …) bound to this exchange; with the default exchange the run
	// then declares a fanout exchange named after the destination and publishes to it.
	Exchange string `yaml:"exchange"`
	// ExchangeType is direct, topic, fanout or x-consistent-hash (default direct); only with
	// Exchange. A consistent-hash exchange routes each message by its key (the scenario's
	// payload.key; a message without one by its sequence number) to one of the queues bound
	// to it: with workload.destinations, summary.json's destinations show each queue's share.
	ExchangeType string `yaml:"exchange_type"`
	// RoutingKey of every publish and of the binding; default: the destination (queue name).
	// With x-consistent-hash it is the binding's weight, a whole number (default 1), and each
	// publish's routing key is the message's key.
	RoutingKey string `yaml:"routing_key"`
	// Prefetch is each consumer channel's QoS: how many unacknowledged messages the broker
	// sends ahead (default 200).
	Prefetch int `yaml:"prefetch"`
	// AckEvery is how many deliveries one multiple=true acknowledgement covers at most
	// (PerfTest's --multi-ack-every); default prefetch/2. A quieter consumer acknowledges
	// sooner, 1 ms after its last delivery. At most prefetch: a consumer never holds more.
	AckEvery int `yaml:"ack_every"`
	// AutoAck consumes without acknowledgements (the broker forgets a message once sent).
	// Default false: manual acknowledgements, see the package comment for the scheme.
	AutoAck bool `yaml:"auto_ack"`
	// Create declares the queue (and exchange) when absent; default true. With false they
	// must exist.
	Create *bool `yaml:"create"`
	// Keep leaves a queue (and exchange) the run declared in place after the run.
	Keep bool `yaml:"keep"`
	// PasswordEnv names an environment variable holding the password, which replaces the
	// URL's password (the password itself never appears in the scenario).
	PasswordEnv string `yaml:"password_env"`
	// TLS configures the amqps:// connection: the CA that verifies the broker, and the client
	// certificate a listener with fail_if_no_peer_cert requires (file names relative to the
	// scenario file). An amqps:// url without it uses the system's roots.
	TLS *driver.TLS `yaml:"tls"`
	// Auth is how the client authenticates: plain (user and password from the url or
	// password_env) or external (SASL EXTERNAL: the broker takes the user from the client
	// certificate, rabbitmq_auth_mechanism_ssl; needs tls.cert_file).
	Auth string `yaml:"auth"`
	// ManagementURL is the management HTTP API (http://host:port) a scenario's faults ask
	// where the queue lives (a quorum queue's leader and members, a classic queue's node).
	// Default: http:// on the url's host, port 15672. Used by faults naming leader or
	// follower (a single API that dies with its node cannot answer the next fault) and by
	// broker stats (queue depth, node memory; a default address that does not answer leaves
	// them unknown).
	ManagementURL string `yaml:"management_url"`
	// PrometheusURL is the rabbitmq_prometheus endpoint (http://host:port) broker stats read
	// the node's CPU time from (the management API has none). Default: http:// on the url's
	// host, port 15692; a default address that does not answer leaves CPU unknown.
	PrometheusURL string `yaml:"prometheus_url"`
}

// consistentHash is the exchange type of RabbitMQ's consistent-hash exchange plugin.
const consistentHash = "x-consistent-hash"

// Defaults fills unset fields. It may run more than once.
func (o *Options) Defaults() {
	if o.QueueType == "" {
		o.QueueType = "classic"
	}
	t := true
	if o.Durable == nil {
		o.Durable = &t
	}
	if o.Persistent == nil {
		o.Persistent = &t
	}
	if o.Confirms == nil {
		o.Confirms = &t
	}
	if o.Create == nil {
		o.Create = &t
	}
	if o.Exchange != "" && o.ExchangeType == "" {
		o.ExchangeType = "direct"
	}
	if o.Prefetch == 0 {
		o.Prefetch = defaultPrefetch
	}
	if o.AckEvery == 0 {
		o.AckEvery = max(1, o.Prefetch/2)
	}
}

// Validate checks each field; problems come sorted by field.
func (o *Options) Validate() []driver.FieldError {
	var errs []driver.FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, driver.FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	for _, f := range []struct{ field, value, creds string }{
		{"management_url", o.ManagementURL, "must not carry credentials (the broker url's are used)"},
		{"prometheus_url", o.PrometheusURL, "must not carry credentials (the endpoint needs none)"},
	} {
		if f.value == "" {
			continue
		}
		if u, err := url.Parse(f.value); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			add(f.field, "want http://host:port or https://host:port, got %q", f.value)
		} else if u.User != nil {
			add(f.field, "%s", f.creds)
		}
	}
	switch o.QueueType {
	case "classic":
	case "quorum", "stream":
		if o.Durable != nil && !*o.Durable {
			add("durable", "%s queues are always durable; remove durable: false", o.QueueType)
		}
		if o.QueueType == "stream" && o.AutoAck {
			add("auto_ack", "stream queues need consumer acknowledgements (they are the consumer's credit); remove auto_ack: true")
		}
	default:
		add("queue_type", "must be classic, quorum or stream, got %q", o.QueueType)
	}
	if o.Mandatory && o.Confirms != nil && !*o.Confirms {
		add("mandatory", "a returned (unroutable) message is reported through its publisher confirm; mandatory needs confirms: true")
	}
	switch {
	case o.Exchange == "" && o.ExchangeType != "":
		add("exchange_type", "only applies with exchange (the default exchange is a direct exchange)")
	case o.Exchange != "":
		switch o.ExchangeType {
		case "direct", "topic", "fanout":
		case consistentHash:
			if w, err := strconv.Atoi(o.RoutingKey); o.RoutingKey != "" && (err != nil || w < 1) {
				add("routing_key", "with exchange_type x-consistent-hash it is the binding's weight, a whole number from 1, got %q", o.RoutingKey)
			}
		default:
			add("exchange_type", "must be direct, topic, fanout or x-consistent-hash, got %q", o.ExchangeType)
		}
	}
	if len(o.Exchange) > 255 {
		add("exchange", "at most 255 bytes")
	}
	if len(o.RoutingKey) > 255 {
		add("routing_key", "at most 255 bytes")
	}
	if o.Prefetch < 1 || o.Prefetch > 65535 {
		add("prefetch", "must be between 1 and 65535, got %d", o.Prefetch)
	}
	switch {
	case o.AckEvery < 1 || o.AckEvery > o.Prefetch:
		add("ack_every", "must be between 1 and prefetch (%d), got %d: the broker sends no more than prefetch unacknowledged deliveries, so a larger batch would never fill", o.Prefetch, o.AckEvery)
	case o.AutoAck && o.AckEvery != max(1, o.Prefetch/2):
		add("ack_every", "does not apply with auto_ack: true (nothing is acknowledged)")
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Field < errs[j].Field })
	switch o.Auth {
	case "", "plain":
	case "external":
		if o.TLS == nil || o.TLS.CertFile == "" {
			add("auth", "external needs a client certificate (tls.cert_file and tls.key_file)")
		}
	default:
		add("auth", "must be plain or external, got %q", o.Auth)
	}
	errs = append(errs, o.TLS.Validate("tls")...)
	return errs
}

// AckMode says what publish latency waits for.
func (o *Options) AckMode() driver.AckMode {
	if o.Confirms == nil || *o.Confirms {
		return "publisher-confirm"
	}
	return "none"
}
