// Package amqp10drv is mqbench's AMQP 1.0 driver (github.com/Azure/go-amqp): RabbitMQ's
// AMQP 1.0 (the 3.x rabbitmq_amqp1_0 plugin, address /queue/<name>; 4.x's /queues/<name>),
// with address plain, brokers that take the destination as the link address as it is
// (tested with ActiveMQ Artemis 2.44.0), and with address activemq ActiveMQ Classic's
// queue://<name> and topic://<name> (tested with 6.1.7); the project starts all three.
//
// Every publisher and every consumer is its own AMQP connection with one session and one
// link, so "producers: 25" is 25 connections. The driver holds one more connection (the
// admin connection): Open dials it to detect an unreachable broker or refused credentials,
// and Setup attaches (and detaches) a sender on it, which makes RabbitMQ 3.x declare the
// queue behind /queue/<name> and makes a broker refuse a bad address before the load starts.
//
// Publishing: with settle unsettled (the default) Send writes the transfer and returns an Ack
// that resolves when the broker's disposition arrives (accepted; rejected, released or
// modified is an error). A per-publisher goroutine waits for the dispositions in send order,
// and at most maxInFlight messages are unsettled per publisher: Send blocks (the link's
// back-pressure, like the broker's own link credit) when more would be. With settle settled
// the transfers are pre-settled and Send returns no Ack.
//
// Consuming: a receiver with credit messages of link credit, accepting each message after
// the callback returned (at-least-once; receivedAt is taken as soon as Receive returns it).
// Consumers of one queue share its messages.
//
// Queue lifetime: AMQP 1.0 on RabbitMQ 3.x can declare a queue (by attaching to
// /queue/<name>) but not delete one. With address rabbitmq-v1 Setup asks the management HTTP
// API (management_url) whether the queue existed, and Teardown deletes it through that API
// when the run created it (unless keep). Without a management API that answers the queue is
// left in place. Other address styles create nothing and delete nothing.
//
// Broker stats: with address rabbitmq-v1 the queue's depth and the node's memory and CPU from
// RabbitMQ's management and Prometheus endpoints. With address plain or activemq the backlog
// is the destination's depth, asked over the admin connection (a request message, the answer
// at a dynamic reply address; see mgmtrequest.go) of Artemis's management address (the
// address's message count; the user needs the manage permission) or of ActiveMQ Classic's
// statistics plugin (the queue's size; the broker must enable StatisticsBrokerPlugin), the
// broker told apart by the product it names when the connection opens. The same read,
// made when a cell's drain ends (ReadBacklog), tells the ledger which messages the broker
// still holds (held, not lost): both brokers count a message until a consumer accepts it.
//
// Broker gone: publishers and consumers re-open their connection with driver.Backoff (100 ms
// doubling to 2 s) until the run ends. Meanwhile Send fails at once and unsettled messages of
// the dead connection fail their Acks; a consumer's delivered but unaccepted messages return to
// the queue and arrive again (duplicates in the ledger).
//
// Security: amqps:// with the common tls block (CA, client certificate, server name); SASL
// PLAIN with the url's user (password from the url, password_env or password_file), ANONYMOUS
// without a user, EXTERNAL (auth external) with a client certificate; the open frame's
// hostname (hostname: RabbitMQ's vhost:<name>). A TLS handshake the broker refuses (a
// certificate it does not trust, none where it requires one) is a refusal, not an
// unreachable broker.
//
// Not done yet: Message.Key (not sent).
package amqp10drv

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/rabbitmgmt"
	"github.com/mqbench/xk6-mqbench/internal/redact"
)

const (
	// dialTimeout bounds connecting and the AMQP/SASL handshake.
	dialTimeout = 5 * time.Second
	// closeTimeout bounds closing a link.
	closeTimeout = 2 * time.Second
	// writeTimeout bounds one frame write.
	writeTimeout = 10 * time.Second
	// maxInFlight is how many unsettled messages one publisher may have.
	maxInFlight = 1024
)

// MaxInFlight is maxInFlight for the bench, whose peer tool gets the same window.
const MaxInFlight = maxInFlight

// Open connects to the broker and returns the run's driver. A broker that cannot be reached
// is an *driver.UnreachableError; refused credentials are a plain error naming the user.
func Open(ctx context.Context, cfg driver.Config) (driver.Driver, error) {
	o, err := driver.Prepared[Options]("amqp10", cfg.Options)
	if err != nil {
		return nil, err
	}
	if err := checkDestination(cfg.Destination, o); err != nil {
		return nil, fmt.Errorf("amqp10: %w", err)
	}
	raw := strings.TrimSpace(cfg.URL)
	if raw == "" {
		raw = "amqp://guest:guest@127.0.0.1:5672"
	}
	if err := checkURL(raw); err != nil {
		return nil, fmt.Errorf("amqp10: %w", err)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("amqp10: invalid url %s (want amqp://user:password@host:port)", redact.URL(raw))
	}
	d := &amqpDriver{cfg: cfg, opts: o, queue: cfg.Destination, address: address(o, cfg.Destination), asker: newAsker()}
	if u.User != nil {
		d.user = u.User.Username()
		d.pass, _ = u.User.Password()
	}
	if v, ok, err := (driver.SecretSource{EnvField: "username_env", Env: o.UsernameEnv}).Read("amqp10"); err != nil {
		return nil, err
	} else if ok {
		d.user = v
	}
	if v, ok, err := o.password().Read("amqp10"); err != nil {
		return nil, err
	} else if ok {
		d.pass = v
	}
	d.tls = strings.EqualFold(u.Scheme, "amqps")
	if o.TLS != nil && !d.tls {
		return nil, fmt.Errorf("amqp10: tls is set but the url %s is not amqps:// (the TLS port, 5671 by default)", redact.URL(raw))
	}
	if d.tls {
		t := o.TLS
		if t == nil {
			t = &driver.TLS{} // the system's roots, the url's host
		}
		if d.tlsConfig, err = t.Config(u.Hostname()); err != nil {
			return nil, fmt.Errorf("amqp10: tls: %w", err)
		}
	}
	port := u.Port()
	if port == "" {
		port = "5672"
		if strings.EqualFold(u.Scheme, "amqps") {
			port = "5671"
		}
	}
	d.host = u.Hostname()
	d.addr = strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(d.host, port)
	if m := o.ManagementURL; m != "" {
		if mu, err := url.Parse(m); err != nil || (mu.Scheme != "http" && mu.Scheme != "https") || mu.Host == "" {
			return nil, fmt.Errorf("amqp10: management_url %q: want http://host:port or https://host:port", m)
		}
	}
	if o.Address == AddressRabbitV1 {
		d.mgmt = rabbitmgmt.New(o.ManagementURL, d.host, d.user, d.pass)
	}
	conn, err := d.dial(ctx, "admin")
	if err != nil {
		return nil, err
	}
	d.admin = conn
	return d, nil
}

type amqpDriver struct {
	cfg     driver.Config
	opts    *Options
	queue   string
	address string // the link address of the destination
	host    string
	addr    string // scheme://host:port, without credentials: what is dialled
	user    string
	pass    string // never printed
	mgmt    *rabbitmgmt.Client

	tls       bool        // amqps://
	tlsConfig *tls.Config // with tls: the common tls block's (or the system's roots)

	mu           sync.Mutex
	admin        *amqp.Conn
	queueCreated bool
	closed       bool
	closeOnce    sync.Once

	stats statsState // BrokerStats' sampler
	asker *asker     // management requests (depth)
}

// dial opens one connection; role names it in the container id (shown by the broker), which
// ends in a random tag: ActiveMQ Classic refuses a connection whose container id is already
// connected, and one run opens a driver per destination (a distributed run's runners share
// its id too), each with its admin, pub-0, cons-0….
func (d *amqpDriver) dial(ctx context.Context, role string) (*amqp.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	opts := &amqp.ConnOptions{
		ContainerID:  fmt.Sprintf("mqbench-%s-%s-%08x", d.cfg.RunID, role, rand.Uint32()),
		WriteTimeout: writeTimeout,
		SASLType:     amqp.SASLTypeAnonymous(),
	}
	switch {
	case d.opts.Auth == AuthExternal:
		// An empty response: the broker takes the identity from the certificate.
		opts.SASLType = amqp.SASLTypeExternal("")
	case d.user != "":
		opts.SASLType = amqp.SASLTypePlain(d.user, d.pass)
	}
	if d.tls {
		opts.TLSConfig = d.tlsConfig
	}
	if d.opts.Hostname != "" {
		opts.HostName = d.opts.Hostname
	}
	conn, err := amqp.Dial(ctx, d.addr, opts)
	if err != nil {
		return nil, d.classify(err)
	}
	return conn, nil
}

// classify turns a dial error into an *driver.UnreachableError (nothing answered), an
// authentication error naming the user (never the password), or a plain error.
func (d *amqpDriver) classify(err error) error {
	msg := d.scrub(err.Error())
	if strings.Contains(msg, "SASL") && strings.Contains(msg, "auth failed") {
		if d.opts.Auth == AuthExternal {
			return fmt.Errorf("amqp10: authentication (SASL EXTERNAL) refused for the client certificate at %s: %s", d.addr, msg)
		}
		return fmt.Errorf("amqp10: authentication refused for user %q at %s: %s", d.user, d.addr, msg)
	}
	var verr *tls.CertificateVerificationError
	if errors.As(err, &verr) {
		// This side refused: the broker's certificate does not verify against tls.ca_file.
		return fmt.Errorf("amqp10: the TLS certificate of %s was refused (not signed by a trusted CA, or not for this name): %s", d.addr, msg)
	}
	var ae *amqp.Error
	if errors.As(err, &ae) && ae.Condition == amqp.ErrCondUnauthorizedAccess {
		return fmt.Errorf("amqp10: access refused for user %q at %s: %s", d.user, d.addr, msg)
	}
	if driver.TLSRefused(d.tls, err) {
		return fmt.Errorf("amqp10: %s refused the TLS connection: %s", d.addr, msg)
	}
	if driver.IsUnreachable(err) {
		if d.pass != "" && strings.Contains(err.Error(), d.pass) {
			err = errors.New(msg)
		}
		return &driver.UnreachableError{Broker: "amqp10", Address: d.addr, Err: err}
	}
	return fmt.Errorf("amqp10: %s: %s", d.addr, msg)
}

func (d *amqpDriver) scrub(s string) string {
	if d.pass != "" {
		s = strings.ReplaceAll(s, d.pass, "***")
	}
	return s
}

// linkErr describes an error of attaching to or using the destination's link.
func (d *amqpDriver) linkErr(what string, err error) error {
	return fmt.Errorf("amqp10: %s %s at %s: %s", what, d.address, d.addr, d.scrub(err.Error()))
}

// session opens a session on conn; ctx bounds it.
func session(ctx context.Context, conn *amqp.Conn) (*amqp.Session, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	return conn.NewSession(ctx, nil)
}

// Setup attaches a sender to the destination's address on the admin connection and detaches
// it: RabbitMQ 3.x declares the queue behind /queue/<name> on attach, and a broker refuses an
// address it does not know here rather than in every publisher. With address rabbitmq-v1 and
// a management API that answers, it records whether the queue was created by the run.
func (d *amqpDriver) Setup(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errors.New("amqp10: driver closed")
	}
	existed, known := false, false
	if d.mgmt != nil {
		if ok, err := d.mgmt.QueueExists(ctx, d.queue); err == nil {
			existed, known = ok, true
		} else if d.opts.QueueType == QueueQuorum {
			return fmt.Errorf("amqp10: queue_type quorum: the management API declares the queue, but %s", d.scrub(err.Error()))
		}
	}
	if d.opts.QueueType == QueueQuorum && !existed {
		if err := d.mgmt.DeclareQuorum(ctx, d.queue); err != nil {
			return fmt.Errorf("amqp10: declare quorum queue %s: %s", d.queue, d.scrub(err.Error()))
		}
	}
	s, err := session(ctx, d.admin)
	if err != nil {
		return d.linkErr("open session for", err)
	}
	defer closeWith(s.Close)
	actx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	var sopts *amqp.SenderOptions // go-amqp's defaults, as before, for the RabbitMQ styles
	if caps := d.capabilities(); caps != nil {
		sopts = &amqp.SenderOptions{TargetCapabilities: caps}
	}
	snd, err := s.NewSender(actx, d.address, sopts)
	if err != nil {
		return d.linkErr("attach to", err)
	}
	closeWith(snd.Close)
	d.queueCreated = known && !existed
	return nil
}

// Teardown deletes the queue through the management API when this run created it, unless
// keep (address rabbitmq-v1 only). With address plain nothing is deleted: AMQP 1.0 has no
// delete, and Artemis's management is not used. An Artemis queue auto-created on attach stays
// unless the broker's address-settings say auto-delete-queues (false in the broker.xml that
// `artemis create` writes; scripts/brokers/artemis.sh sets it true, so an empty queue without
// consumers is removed within the address-queue-scan-period, 30 s).
func (d *amqpDriver) Teardown(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.queueCreated || d.opts.Keep {
		return nil
	}
	if err := d.mgmt.DeleteQueue(ctx, d.queue); err != nil {
		return fmt.Errorf("amqp10: delete queue %s: %s", d.queue, d.scrub(err.Error()))
	}
	d.queueCreated = false
	return nil
}

// DestinationExists reports whether the queue exists, where the management API tells
// (address rabbitmq-v1); elsewhere it is not applicable.
func (d *amqpDriver) DestinationExists(ctx context.Context) (exists, applicable bool, err error) {
	if d.mgmt == nil {
		return false, false, nil
	}
	ok, err := d.mgmt.QueueExists(ctx, d.queue)
	if err != nil {
		return false, false, nil // no management API: cannot tell
	}
	return ok, true, nil
}

// Close closes the admin connection. Idempotent.
func (d *amqpDriver) Close() error {
	d.closeOnce.Do(func() {
		d.mu.Lock()
		d.closed = true
		conn := d.admin
		d.mu.Unlock()
		if conn != nil {
			_ = conn.Close()
		}
	})
	return nil
}

// capabilities are the link capabilities asked for on the destination's terminus (the
// sender's target, the receiver's source). With address plain: "queue", which makes ActiveMQ
// Artemis auto-create an anycast address and queue (its default for an unknown address is
// multicast, which would drop messages sent before a consumer attached and give every
// consumer all messages). ActiveMQ Classic 6.1 reads neither capability on a named terminus
// (only on dynamic ones): the name decides (a bare name is a queue, topic://NAME a topic), so
// address activemq writes the prefix; the capability is sent too, harmlessly.
// RabbitMQ's styles carry the kind in the address and send none.
func (d *amqpDriver) capabilities() []string {
	switch {
	case d.opts.Address != AddressPlain && d.opts.Address != AddressActiveMQ:
		return nil
	case d.opts.Routing == RoutingMulticast:
		return []string{"topic"}
	}
	return []string{"queue"}
}

// closeWith calls a link's or session's Close with a bounded context.
func closeWith(f func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	_ = f(ctx)
}

// NewPublisher opens publisher connection id with one session and one sender.
func (d *amqpDriver) NewPublisher(ctx context.Context, id int) (driver.Publisher, error) {
	p, err := d.newPublisher(ctx, id)
	switch {
	case err != nil:
		return nil, err
	case d.opts.SendQueue > 0:
		return newQueuedPublisher(p, d.opts.SendQueue), nil
	}
	return p, nil
}

// NewConsumer opens consumer connection id; Start attaches the receiver.
func (d *amqpDriver) NewConsumer(ctx context.Context, id int) (driver.Consumer, error) {
	return d.newConsumer(ctx, id)
}

var _ driver.Topology = (*amqpDriver)(nil)

// Placement asks RabbitMQ's management API where the queue lives (address rabbitmq-v1 only:
// a quorum queue's leader and members, a classic queue's node).
func (d *amqpDriver) Placement(ctx context.Context) (leader string, followers []string, err error) {
	if d.mgmt == nil {
		return "", nil, errors.New("amqp10: only address rabbitmq-v1 can tell where the destination lives")
	}
	leader, followers, err = d.mgmt.Placement(ctx, d.queue)
	if err != nil {
		return "", nil, fmt.Errorf("amqp10: where queue %s lives: %s", d.queue, d.scrub(err.Error()))
	}
	return leader, followers, nil
}
