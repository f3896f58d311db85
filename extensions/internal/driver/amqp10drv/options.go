package amqp10drv

import (
	"fmt"
	"net/url"
	"sort"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

const (
	defaultCredit = 256
	maxCredit     = 65535
	// maxSendQueue bounds send_queue: 10 s of 6,500 msg/s.
	maxSendQueue = 65536

	// Address styles.
	AddressRabbitV1 = "rabbitmq-v1"
	AddressRabbitV2 = "rabbitmq-v2"
	AddressPlain    = "plain"
	AddressActiveMQ = "activemq"

	// Settlement modes of the sender.
	SettleUnsettled = "unsettled"
	SettleSettled   = "settled"

	// Consumer acknowledgement.
	AcceptManual = "manual"
	AcceptAuto   = "auto"

	// Routing of address plain.
	RoutingAnycast   = "anycast"
	RoutingMulticast = "multicast"

	// Queue types of address rabbitmq-v1.
	QueueClassic = "classic"
	QueueQuorum  = "quorum"

	// SASL mechanisms.
	AuthPlain    = "plain"
	AuthExternal = "external"
)

// Options is the scenario's `broker.amqp10` block.
type Options struct {
	// Address is how the destination becomes the AMQP 1.0 link address: rabbitmq-v1 (default)
	// is /queue/<destination> (RabbitMQ 3.x rabbitmq_amqp1_0 plugin; the broker declares the
	// queue when it is absent), rabbitmq-v2 is /queues/<destination> (RabbitMQ 4.x address
	// format v2; the queue must exist; untested here, only 3.10 was available), plain is the
	// destination as it is (ActiveMQ Artemis, other brokers), activemq is queue://<destination>
	// or, with routing multicast, topic://<destination> (ActiveMQ Classic, which reads the
	// kind from the name and ignores link capabilities).
	Address string `yaml:"address"`
	// Settle is the sender's settlement mode: unsettled (default) sends each message
	// unsettled and publish latency waits for the broker's disposition (accepted); settled
	// sends pre-settled messages (fire-and-forget: no publish latency, no delivery promise).
	Settle string `yaml:"settle"`
	// Durable sets the durable flag in every message's header (the broker persists it);
	// default true.
	Durable *bool `yaml:"durable"`
	// Accept is how consumers acknowledge: manual (default) accepts each message after it was
	// measured (at-least-once: unaccepted messages return to the queue when a consumer dies);
	// auto asks the broker to send every message pre-settled (at-most-once, no accept
	// frames: what a fire-and-forget consumer costs).
	Accept string `yaml:"accept"`
	// Routing is how the destination is attached with address plain or activemq: anycast
	// (default; the "queue" capability, or queue:// with activemq) makes consumers share one
	// queue where messages wait for a consumer; multicast (the "topic" capability, or
	// topic://) gives every consumer every message and drops messages sent while no consumer
	// is attached: with consumers > 1 the ledger counts consumers-1 duplicates per message.
	Routing string `yaml:"routing"`
	// QueueType is the queue the run declares with address rabbitmq-v1: classic (default;
	// declared by the broker when the link attaches to /queue/<destination>) or quorum
	// (declared through the management API before the run, durable, then used through
	// /amq/queue/<destination>: RabbitMQ 3.x's AMQP 1.0 cannot declare a quorum queue).
	QueueType string `yaml:"queue_type"`
	// Credit is each consumer's link credit: how many messages the broker may send ahead of
	// the consumer's accepts (default 256).
	Credit int `yaml:"credit"`
	// SendQueue is how many messages one publisher may hold for its connection (settle
	// unsettled only): 0 (default) writes each transfer during the send, so a producer waits
	// for the client to write it (go-amqp writes one transfer at a time per link, through
	// its link, session and connection goroutines) and a generator at a high rate runs out of
	// VUs and drops ticks; more queues the message and returns at once, the publisher's own
	// goroutine writing the transfers in order, so the schedule holds while the writes keep
	// up on average. A message's publish latency still runs from its send to the broker's
	// disposition, its wait in the queue included; when the queue is full a send waits.
	SendQueue int `yaml:"send_queue"`
	// ManagementURL is RabbitMQ's management HTTP API (http://host:port), used with address
	// rabbitmq-v1 to tell whether the queue existed before the run, to declare a quorum queue
	// (queue_type quorum) and to delete a queue the run created (AMQP 1.0 on RabbitMQ 3.x can
	// neither declare a quorum queue nor delete a queue). Default: http:// on the
	// url's host, port 15672. When it does not answer, the queue the broker declared stays.
	ManagementURL string `yaml:"management_url"`
	// PrometheusURL is RabbitMQ's rabbitmq_prometheus endpoint (http://host:port), from which
	// broker stats read the node's CPU time with address rabbitmq-v1 (the management API,
	// management_url, gives queue depth and memory). Default: http:// on the url's host, port
	// 15692; a default address that does not answer leaves CPU unknown.
	PrometheusURL string `yaml:"prometheus_url"`
	// Keep leaves a queue the run created in place after the run.
	Keep bool `yaml:"keep"`
	// UsernameEnv names an environment variable holding the user name, which replaces the
	// url's (the name then need not appear in the scenario).
	UsernameEnv string `yaml:"username_env"`
	// PasswordEnv names an environment variable holding the password, which replaces the
	// url's (the password itself never appears in the scenario).
	PasswordEnv string `yaml:"password_env"`
	// PasswordFile names a file whose content (trailing newline dropped) is the password,
	// which replaces the url's; not with password_env. Read when the run starts, never
	// printed.
	PasswordFile string `yaml:"password_file"`
	// TLS configures the amqps:// connection: the CA that verifies the broker, the client
	// certificate an acceptor with needClientAuth (Artemis) or a transport with
	// needClientAuth=true (ActiveMQ Classic) requires, the name the broker's certificate must
	// carry (file names relative to the scenario file). An amqps:// url without it uses the
	// system's roots; the block needs an amqps:// url.
	TLS *driver.TLS `yaml:"tls"`
	// Auth is the SASL mechanism: plain (the default: PLAIN with the user and password of the
	// url, username_env, password_env or password_file, ANONYMOUS when there is no user) or
	// external (SASL EXTERNAL: the broker takes the identity from the client certificate:
	// Artemis with a certificate login module, RabbitMQ with rabbitmq_auth_mechanism_ssl;
	// ActiveMQ Classic 6.1 has no EXTERNAL; needs tls.cert_file and no password).
	Auth string `yaml:"auth"`
	// Hostname is the hostname field of the AMQP open frame, which some brokers read to pick
	// a virtual host: RabbitMQ's AMQP 1.0 takes "vhost:<name>" (or a vhost's name); ActiveMQ
	// Artemis and Classic ignore it (only the Artemis and Classic paths are tested here).
	// Default: the url's host.
	Hostname string `yaml:"hostname"`
}

// Defaults fills unset fields. It may run more than once.
func (o *Options) Defaults() {
	if o.Address == "" {
		o.Address = AddressRabbitV1
	}
	if o.Settle == "" {
		o.Settle = SettleUnsettled
	}
	if o.Durable == nil {
		t := true
		o.Durable = &t
	}
	if o.Credit == 0 {
		o.Credit = defaultCredit
	}
	if o.Accept == "" {
		o.Accept = AcceptManual
	}
	if o.Routing == "" {
		o.Routing = RoutingAnycast
	}
	if o.QueueType == "" {
		o.QueueType = QueueClassic
	}
	if o.Auth == "" {
		o.Auth = AuthPlain
	}
}

// Validate checks each field; problems come sorted by field.
func (o *Options) Validate() []driver.FieldError {
	var errs []driver.FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, driver.FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	switch o.Address {
	case AddressRabbitV1, AddressRabbitV2, AddressPlain, AddressActiveMQ:
	default:
		add("address", "must be rabbitmq-v1, rabbitmq-v2, plain or activemq, got %q", o.Address)
	}
	switch o.Settle {
	case SettleUnsettled, SettleSettled:
	default:
		add("settle", "must be unsettled or settled, got %q", o.Settle)
	}
	switch o.Accept {
	case AcceptManual, AcceptAuto:
	default:
		add("accept", "must be manual or auto, got %q", o.Accept)
	}
	switch o.Routing {
	case RoutingAnycast:
	case RoutingMulticast:
		if o.Address != AddressPlain && o.Address != AddressActiveMQ {
			add("routing", "multicast needs address plain or activemq (RabbitMQ's addresses name a queue)")
		}
	default:
		add("routing", "must be anycast or multicast, got %q", o.Routing)
	}
	switch o.QueueType {
	case QueueClassic:
	case QueueQuorum:
		if o.Address != AddressRabbitV1 {
			add("queue_type", "quorum needs address rabbitmq-v1 (with rabbitmq-v2 and plain the broker's own configuration decides)")
		}
	default:
		add("queue_type", "must be classic or quorum, got %q", o.QueueType)
	}
	if o.Credit < 1 || o.Credit > maxCredit {
		add("credit", "must be between 1 and %d, got %d", maxCredit, o.Credit)
	}
	switch {
	case o.SendQueue < 0 || o.SendQueue > maxSendQueue:
		add("send_queue", "must be between 0 and %d, got %d", maxSendQueue, o.SendQueue)
	case o.SendQueue > 0 && o.Settle == SettleSettled:
		add("send_queue", "needs settle unsettled (a settled transfer has no disposition to end its publish latency)")
	}
	if o.ManagementURL != "" {
		// The form (http://host:port) is checked by Open, which needs it.
		if u, err := url.Parse(o.ManagementURL); err == nil && u.User != nil {
			add("management_url", "must not carry credentials (the broker url's are used)")
		}
	}
	if p := o.PrometheusURL; p != "" {
		switch u, err := url.Parse(p); {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			add("prometheus_url", "want http://host:port or https://host:port, got %q", p)
		case u.User != nil:
			add("prometheus_url", "must not carry credentials (the endpoint needs none)")
		case o.Address != AddressRabbitV1:
			add("prometheus_url", "only applies to address rabbitmq-v1 (RabbitMQ)")
		}
	}
	switch o.Auth {
	case AuthPlain:
	case AuthExternal:
		if o.TLS == nil || o.TLS.CertFile == "" {
			add("auth", "external needs a client certificate (tls.cert_file and tls.key_file)")
		}
		if o.PasswordEnv != "" || o.PasswordFile != "" {
			add("auth", "external takes no password (the client certificate is the credential)")
		}
	default:
		add("auth", "must be plain or external, got %q", o.Auth)
	}
	errs = append(errs, o.password().Check()...)
	errs = append(errs, o.TLS.Validate("tls")...)
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Field < errs[j].Field })
	return errs
}

// password is where the scenario says the password comes from; an empty one is refused (it
// would silently authenticate as nobody).
func (o *Options) password() driver.SecretSource {
	return driver.SecretSource{EnvField: "password_env", Env: o.PasswordEnv, FileField: "password_file", File: o.PasswordFile, NonEmpty: true}
}

// AckMode says what publish latency waits for.
func (o *Options) AckMode() driver.AckMode {
	if o.Settle == SettleSettled {
		return "none"
	}
	return "amqp-disposition"
}

// promisesDelivery (Spec.PromisesDelivery): the broker settled (accepted) a durable message, and
// keeps it until a consumer accepts it. With accept auto the broker sends messages settled and
// forgets them, so one lost on the way to a consumer is gone: a fault may lose messages by
// design.
func promisesDelivery(opts driver.Options) bool {
	o := opts.(*Options)
	return o.Settle != SettleSettled && (o.Durable == nil || *o.Durable) && o.Accept != AcceptAuto
}

// address is the link address of destination in o's style.
func address(o *Options, destination string) string {
	switch o.Address {
	case AddressRabbitV2:
		return "/queues/" + url.PathEscape(destination)
	case AddressPlain:
		return destination
	case AddressActiveMQ:
		// ActiveMQ Classic reads the kind from the name, not from capabilities.
		if o.Routing == RoutingMulticast {
			return "topic://" + destination
		}
		return "queue://" + destination
	default:
		if o.QueueType == QueueQuorum {
			return "/amq/queue/" + destination // declared through the management API
		}
		return "/queue/" + destination
	}
}
