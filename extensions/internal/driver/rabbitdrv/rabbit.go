// Package rabbitdrv is mqbench's RabbitMQ driver (AMQP 0-9-1, amqp091-go): classic, quorum and
// stream queues, the default exchange or a named direct / topic / fanout exchange.
//
// Every publisher and every consumer is its own AMQP connection with one channel, so
// "producers: 25" is 25 connections; a channel is never opened per publish. The driver holds
// one more connection (the admin connection) to detect an unreachable broker and to declare
// and delete the queue and exchange; every declaration that may fail runs on a throwaway
// channel (AMQP closes a channel on any error).
//
// Publishing: with confirms (the default) each publisher's channel is in confirm mode, Send
// publishes and returns an Ack that waits for the broker's basic.ack (basic.nack, or a
// connection that closed first, is an error). With mandatory, a message that no queue
// received comes back as basic.return before its basic.ack, and its Ack fails with the
// broker's reply text. Without confirms Send returns no Ack (fire-and-forget). A publisher's
// socket writes are gathered: amqp091-go writes every publish out on its own, and publishes
// that arrive while the previous write is in the kernel leave together in the next one (no
// timer, so nothing waits when the socket is idle).
//
// Consuming: consumers of classic and quorum queues share the queue's messages (each message
// reaches one consumer). A stream is not consumed destructively: every consumer reads every
// message from the point it attached ("x-stream-offset": "next"), like a fan-out.
// Acknowledgements (unless auto_ack) are sent with multiple=true, covering every delivery up
// to the last one: once ack_every deliveries (default half the prefetch window) are
// unacknowledged, or when no further delivery arrived for 1 ms. A busy consumer so sends one
// ack per ack_every messages, a bursty one one per burst (measured: 1 ack per ~65 deliveries
// instead of 1 per 2 with ack-when-idle), and the broker's window does not stall for long (with
// the default an ack is due long before prefetch messages are outstanding; with ack_every =
// prefetch, as PerfTest's --multi-ack-every 200 with --qos 200, the window is full when the ack
// goes, and 1 ms after the last delivery at the latest). Acks do not
// enter the measured latency: receivedAt is taken before the callback. A message is
// delivered to the callback before it is acknowledged (at-least-once); Close acknowledges
// what was delivered, so the broker requeues only messages the callback never saw.
//
// Fan-out (driver.FanOut, Config.Subscriptions > 1): every subscription is a queue, the
// destination for the first and <destination>.s<n> for the others, all bound to the exchange
// with the routing key, so each receives every message and its consumers share it. Without an
// exchange option the run declares a fanout exchange named after the destination (exchange and
// queue names do not collide) and publishes to it. Setup declares (create) and Teardown deletes
// (unless keep) each queue and that exchange like the destination's own. Streams cannot fan
// out this way (their consumers do not share messages).
//
// Stamp in a header (driver.HeaderStamp, payload.stamp: header): the stamp is the entry
// "mqbench-stamp" of the message's headers table (a byte array, 36 bytes), the body alone is
// the body; one table per publisher serves every publish (amqp091 encodes it before Publish
// returns). The consumer hands the runner stamp‖body.
//
// Broker death and reconnection: a dead connection is noticed at once when the socket closes
// (a crashed or stopped broker), within about two heartbeats (5 s) when the broker went silent,
// and a socket write that blocks for 10 s (a broker that stopped reading, or memory-alarm flow
// control that long) kills the connection too, so Send never blocks forever. Outstanding Acks
// then fail. Every publisher and consumer then re-opens its own connection in the background,
// with backoff (at once if the dead connection had lived for more than 2 s, then 100 ms
// doubling to 2 s between attempts), until it succeeds or is closed:
//   - a publisher's Send fails at once while its connection is down (each such message is a
//     publish error); once a new connection, channel and confirm mode are open, Sends succeed
//     again. Nothing is declared by publishers.
//   - a consumer re-declares what the run declared and consuming needs (the exchange and the
//     queue with the same arguments, the binding: a queue that was not durable is gone after
//     a broker restart; declarations of what still exists are no-ops), issues basic.qos and
//     basic.consume again and goes on delivering into the same callback. Deliveries that were
//     not acknowledged before the connection died are redelivered (duplicates in the ledger).
//     A stream consumer resumes just after the last offset it delivered.
//   - the admin connection (Setup, Teardown) is re-opened when next needed.
//
// Close stops reconnecting at once, aborting a connection attempt in progress; it never waits
// for a broker that is down.
package rabbitdrv

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"github.com/mqbench/xk6-mqbench/internal/redact"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

const (
	// dialTimeout bounds the TCP connect, so an unreachable broker is reported quickly.
	dialTimeout = 3 * time.Second
	// handshakeTimeout bounds TLS and AMQP handshaking after the connect.
	handshakeTimeout = 5 * time.Second
	// heartbeat is the AMQP heartbeat interval: a broker that went silent is noticed within
	// about two intervals.
	heartbeat = 5 * time.Second
	// writeTimeout bounds one socket write; past it the connection is dropped.
	writeTimeout = 10 * time.Second
	// closeTimeout bounds the connection.close handshake on Close.
	closeTimeout = 2 * time.Second
	// closeWait bounds how long a consumer's Close waits for its goroutine.
	closeWait = 5 * time.Second
	// ackDelay is how long a consumer that ran out of deliveries waits before it acknowledges
	// the ones it has (one multiple=true ack for the whole burst).
	ackDelay = time.Millisecond
)

// waitDone waits for a goroutine to finish, at most closeWait.
func waitDone(done <-chan struct{}) {
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// Open connects to the broker and returns the run's driver. A broker that cannot be reached
// is an *driver.UnreachableError; refused credentials are a plain error naming the user.
func Open(ctx context.Context, cfg driver.Config) (driver.Driver, error) {
	o, err := optionsFrom(cfg.Options)
	if err != nil {
		return nil, err
	}
	q := cfg.Destination
	switch {
	case q == "":
		return nil, errors.New("rabbitmq: destination (queue name) is empty")
	case len(q) > 255:
		return nil, fmt.Errorf("rabbitmq: queue name is %d bytes long, at most 255 are allowed", len(q))
	}
	key := o.RoutingKey
	switch {
	case key == "" && o.ExchangeType == consistentHash:
		key = "1" // the binding's weight: every queue an equal share of the hash ring
	case key == "":
		key = q
	}
	if o.Exchange == "" && key != q {
		return nil, fmt.Errorf("rabbitmq: routing_key %q with the default exchange would route away from the queue %q; leave routing_key unset or name an exchange", key, q)
	}
	subs := max(1, cfg.Subscriptions)
	if subs > 1 {
		if !fanOut(o) {
			return nil, fmt.Errorf("rabbitmq: %d subscriptions need a classic or quorum queue (every consumer of a stream reads every message, so a stream cannot give a subscription's consumers shared messages)", subs)
		}
		if n := len(subQueue(q, subs-1)); n > 255 {
			return nil, fmt.Errorf("rabbitmq: subscription queue %s is %d bytes long, at most 255 are allowed", subQueue(q, subs-1), n)
		}
	}
	exchange, exchangeType := o.Exchange, o.ExchangeType
	if exchange == "" && subs > 1 {
		// Fan-out needs an exchange: one named after the queue (exchanges and queues have
		// separate names), fanout, so every subscription's queue receives every message.
		exchange, exchangeType = q, "fanout"
	}

	raw := strings.TrimSpace(cfg.URL)
	if raw == "" {
		raw = "amqp://guest:guest@127.0.0.1:5672/"
	}
	uri, err := amqp.ParseURI(raw)
	if err != nil {
		// The parser's message may quote the URL; do not repeat it (it may hold a password).
		return nil, fmt.Errorf("rabbitmq: invalid url %s (want amqp://user:password@host:port/vhost)", redact.URL(raw))
	}
	if o.TLS != nil && uri.Scheme != "amqps" {
		return nil, fmt.Errorf("rabbitmq: tls is set but the url %s is not amqps:// (the TLS port, 5671 by default)", redact.URL(raw))
	}
	pw, ok, err := driver.SecretSource{EnvField: "password_env", Env: o.PasswordEnv}.Read("rabbitmq")
	if err != nil {
		return nil, err
	}
	if ok {
		uri.Password = pw
	}
	d := &rabbitDriver{
		cfg:          cfg,
		opts:         o,
		queue:        q,
		key:          key,
		subs:         subs,
		subCreated:   make([]bool, subs),
		exchange:     exchange,
		exchangeType: exchangeType,
		url:          raw,
		uri:          uri,
		addr:         addrOf(uri),
		secret:       uri.Password,
	}
	conn, err := d.dial(ctx, "mqbench-admin")
	if err != nil {
		return nil, err
	}
	d.admin = conn
	d.server = serverName(conn.Properties)
	return d, nil
}

var _ driver.Identifier = (*rabbitDriver)(nil)

// Server is the product and version the broker announced in connection.start ("RabbitMQ
// 3.10.8"), read when the admin connection opened.
func (d *rabbitDriver) Server(context.Context) string { return d.server }

// serverName makes "product version" of connection.start's server properties.
func serverName(props amqp.Table) string {
	product, _ := props["product"].(string)
	version, _ := props["version"].(string)
	return strings.TrimSpace(product + " " + version)
}

type rabbitDriver struct {
	cfg   driver.Config
	opts  *Options
	queue string
	key   string // routing key of publishes and of the binding
	subs  int    // subscriptions (≥ 1): queue, then queueOf(1…)

	// exchange the run publishes to and binds its queues to ("": the default exchange): the
	// exchange option, or with several subscriptions and none, a fanout exchange named after
	// the queue.
	exchange     string
	exchangeType string

	url    string // as given (may hold credentials): only for amqp.DialConfig
	uri    amqp.URI
	addr   string // without credentials
	secret string // the password: never printed
	server string // "RabbitMQ 3.10.8" (Server), from the admin connection's connection.start

	adminMu sync.Mutex // guards admin and closed
	admin   *amqp.Connection
	closed  bool

	mu              sync.Mutex // guards what Setup declared, against Teardown and redeclare
	queueCreated    bool       // subscription 0's queue, the destination
	subCreated      []bool     // by subscription; [0] unused (queueCreated)
	exchangeCreated bool

	stats     statsState  // BrokerStats' sampler
	consumers consumerSet // the run's consumers, for ReadBacklog

	closeOnce sync.Once
}

// deadlineConn bounds every socket write, so a publish (or an ack, or the close handshake)
// cannot block forever on a broker that stopped reading.
type deadlineConn struct{ net.Conn }

func (c deadlineConn) Write(b []byte) (int, error) {
	if err := c.Conn.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
		return 0, err
	}
	return c.Conn.Write(b)
}

// dial opens one AMQP connection named name (shown in the management UI).
func (d *rabbitDriver) dial(ctx context.Context, name string) (*amqp.Connection, error) {
	conn, release, err := d.dialGuarded(ctx, name, false)
	if err != nil {
		return nil, err
	}
	if !release() {
		closeConn(conn)
		return nil, d.classify(ctx.Err())
	}
	return conn, nil
}

// dialGuarded opens one AMQP connection named name; batchWrites gathers its socket writes
// (batchConn, for publishers). Until release is called, ctx ending closes
// the socket, which aborts the handshake and any call on the connection (opening a channel,
// basic.qos, …) at once, even against a broker that stopped answering. release returns
// false when ctx ended first (the connection is then unusable); it must be called once the
// caller's opening sequence is over.
func (d *rabbitDriver) dialGuarded(ctx context.Context, name string, batchWrites bool) (conn *amqp.Connection, release func() bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	release = func() bool { return true }
	var sock net.Conn // what Dial returned: closed here if the handshake fails
	props := amqp.NewConnectionProperties()
	props.SetClientConnectionName(name)
	cfg := amqp.Config{
		SASL:       []amqp.Authentication{&amqp.PlainAuth{Username: d.uri.Username, Password: d.uri.Password}},
		Vhost:      d.uri.Vhost,
		Heartbeat:  heartbeat,
		Properties: props,
		// Called by DialConfig on this goroutine.
		Dial: func(network, addr string) (net.Conn, error) {
			dl := net.Dialer{Timeout: dialTimeout}
			conn, err := dl.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			// Cleared by amqp091 once the handshake completed.
			if err := conn.SetDeadline(time.Now().Add(handshakeTimeout)); err != nil {
				conn.Close()
				return nil, err
			}
			var c net.Conn = deadlineConn{conn}
			if batchWrites {
				c = newBatchConn(c)
			}
			sock = c
			release = context.AfterFunc(ctx, func() { c.Close() })
			return c, nil
		},
	}
	if d.uri.Scheme == "amqps" {
		cfg.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, ServerName: d.uri.Host}
		if t := d.opts.TLS; t != nil {
			if cfg.TLSClientConfig, err = t.Config(d.uri.Host); err != nil {
				return nil, nil, fmt.Errorf("rabbitmq: tls: %w", err)
			}
		}
	}
	if d.opts.Auth == "external" {
		cfg.SASL = []amqp.Authentication{&amqp.ExternalAuth{}}
	}
	conn, err = amqp.DialConfig(d.url, cfg)
	if err != nil {
		release()
		if sock != nil {
			sock.Close() // amqp091 leaves it open on some handshake errors (a batchConn's writer with it)
		}
		return nil, nil, d.classify(err)
	}
	return conn, release, nil
}

// classify turns a connection error into an *driver.UnreachableError (nothing answered), an
// authentication error that names the user (never the password), or a plain error.
func (d *rabbitDriver) classify(err error) error {
	var ae *amqp.Error
	if errors.As(err, &ae) {
		switch ae.Code {
		case amqp.AccessRefused:
			return fmt.Errorf("rabbitmq: authentication failed for user %q at %s: %s", d.uri.Username, d.addr, d.scrub(ae.Reason))
		case amqp.NotAllowed:
			return fmt.Errorf("rabbitmq: user %q may not open vhost %q at %s: %s", d.uri.Username, d.uri.Vhost, d.addr, d.scrub(ae.Reason))
		}
	}
	if driver.TLSRefused(d.uri.Scheme == "amqps", err) {
		return fmt.Errorf("rabbitmq: %s refused the TLS connection: %s", d.addr, d.scrub(err.Error()))
	}
	if driver.IsUnreachable(err) {
		if d.secret != "" && strings.Contains(err.Error(), d.secret) {
			err = errors.New(d.scrub(err.Error()))
		}
		return &driver.UnreachableError{Broker: "rabbitmq", Address: d.addr, Err: err}
	}
	return fmt.Errorf("rabbitmq: %s: %s", d.addr, d.scrub(err.Error()))
}

func (d *rabbitDriver) scrub(s string) string {
	if d.secret != "" {
		s = strings.ReplaceAll(s, d.secret, "***")
	}
	return s
}

// adminConn returns the admin connection, re-opened if it died (a broker restart).
func (d *rabbitDriver) adminConn() (*amqp.Connection, error) {
	d.adminMu.Lock()
	defer d.adminMu.Unlock()
	if d.closed {
		return nil, errors.New("rabbitmq: driver closed")
	}
	if d.admin != nil && !d.admin.IsClosed() {
		return d.admin, nil
	}
	conn, err := d.dial(context.Background(), "mqbench-admin")
	if err != nil {
		return nil, err
	}
	d.admin = conn
	return conn, nil
}

// withChannel runs f on a fresh channel of the admin connection and closes it afterwards (a
// failed declaration has closed it already).
func (d *rabbitDriver) withChannel(f func(*amqp.Channel) error) error {
	conn, err := d.adminConn()
	if err != nil {
		return err
	}
	return onChannel(conn, f)
}

// onChannel runs f on a fresh channel of conn and closes it afterwards.
func onChannel(conn *amqp.Connection, f func(*amqp.Channel) error) error {
	ch, err := conn.Channel()
	if err != nil {
		return fmt.Errorf("rabbitmq: open channel: %w", err)
	}
	defer ch.Close()
	return f(ch)
}

// redeclare runs on a consumer's new connection after the old one died: it declares again
// what Setup declared, with the same arguments (a queue or exchange that was not durable is
// gone after a broker restart; for one that exists the declaration is a no-op), and binds the
// queue to the exchange again. What the run did not declare is left alone. It holds d.mu,
// so it never runs concurrently with Teardown, and declares nothing Teardown already removed.
func (d *rabbitDriver) redeclare(conn *amqp.Connection) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	o := d.opts
	if d.exchangeCreated {
		if err := onChannel(conn, func(ch *amqp.Channel) error {
			return ch.ExchangeDeclare(d.exchange, d.exchangeType, *o.Durable, false, false, false, nil)
		}); err != nil {
			return err
		}
	}
	for s := 0; s < d.subs; s++ {
		name, created := d.queueOf(s), d.created(s)
		if created {
			if err := onChannel(conn, func(ch *amqp.Channel) error {
				_, err := ch.QueueDeclare(name, *o.Durable, false, false, false, d.queueArgs())
				return err
			}); err != nil {
				return err
			}
		}
		if d.exchange != "" && (created || d.exchangeCreated) {
			if err := onChannel(conn, func(ch *amqp.Channel) error { return ch.QueueBind(name, d.key, d.exchange, false, nil) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// queueOf is subscription sub's queue.
func (d *rabbitDriver) queueOf(sub int) string { return subQueue(d.queue, sub) }

// subQueue names subscription sub's queue: the destination, then <destination>.s<sub>.
func subQueue(dest string, sub int) string { return driver.SubscriptionName(dest, ".", sub) }

// created says whether the run declared subscription sub's queue (under d.mu).
func (d *rabbitDriver) created(sub int) bool {
	if sub == 0 {
		return d.queueCreated
	}
	return d.subCreated[sub]
}

func (d *rabbitDriver) setCreated(sub int, v bool) {
	if sub == 0 {
		d.queueCreated = v
	} else {
		d.subCreated[sub] = v
	}
}

// queueArgs are the arguments of the queue the run declares.
func (d *rabbitDriver) queueArgs() amqp.Table {
	return amqp.Table{"x-queue-type": d.opts.QueueType}
}

// queueExists checks with a passive declaration that the destination queue exists.
func (d *rabbitDriver) queueExists() (bool, error) { return d.queueNamedExists(d.queue) }

// queueNamedExists checks with a passive declaration.
func (d *rabbitDriver) queueNamedExists(name string) (bool, error) {
	err := d.withChannel(func(ch *amqp.Channel) error {
		_, err := ch.QueueDeclarePassive(name, false, false, false, false, nil)
		return err
	})
	return exists(err, "queue", name)
}

func (d *rabbitDriver) exchangeExists() (bool, error) {
	err := d.withChannel(func(ch *amqp.Channel) error {
		return ch.ExchangeDeclarePassive(d.exchange, d.exchangeType, *d.opts.Durable, false, false, false, nil)
	})
	return exists(err, "exchange", d.exchange)
}

func exists(err error, what, name string) (bool, error) {
	var ae *amqp.Error
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &ae) && ae.Code == amqp.NotFound:
		return false, nil
	}
	return false, fmt.Errorf("rabbitmq: check %s %s: %w", what, name, err)
}

// Setup declares the queue (x-queue-type from queue_type) when it is absent, and the exchange
// and binding when an exchange is named. With several subscriptions it does the same for each
// subscription's queue (<destination>.s<n> after the first), binding every one to the
// exchange: the exchange option's, or a fanout exchange named after the destination. It
// records what it declared, for Teardown. An existing queue or exchange is used as it is (its
// type and arguments are not compared).
func (d *rabbitDriver) Setup(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	o := d.opts
	for s := 0; s < d.subs; s++ {
		name := d.queueOf(s)
		ok, err := d.queueNamedExists(name)
		if err != nil {
			return err
		}
		if ok {
			continue
		}
		if !*o.Create {
			return fmt.Errorf("rabbitmq: queue %s does not exist at %s and create is false", name, d.addr)
		}
		err = d.withChannel(func(ch *amqp.Channel) error {
			_, err := ch.QueueDeclare(name, *o.Durable, false, false, false, d.queueArgs())
			return err
		})
		if err != nil {
			return fmt.Errorf("rabbitmq: declare %s queue %s: %w", o.QueueType, name, err)
		}
		d.setCreated(s, true)
	}
	if d.exchange == "" {
		return nil
	}
	ok, err := d.exchangeExists()
	if err != nil {
		return err
	}
	if !ok {
		if !*o.Create {
			return fmt.Errorf("rabbitmq: exchange %s does not exist at %s and create is false", d.exchange, d.addr)
		}
		err := d.withChannel(func(ch *amqp.Channel) error {
			return ch.ExchangeDeclare(d.exchange, d.exchangeType, *o.Durable, false, false, false, nil)
		})
		if err != nil {
			return fmt.Errorf("rabbitmq: declare %s exchange %s: %w", d.exchangeType, d.exchange, err)
		}
		d.exchangeCreated = true
	}
	for s := 0; s < d.subs; s++ {
		name := d.queueOf(s)
		err = d.withChannel(func(ch *amqp.Channel) error { return ch.QueueBind(name, d.key, d.exchange, false, nil) })
		if err != nil {
			return fmt.Errorf("rabbitmq: bind queue %s to exchange %s with routing key %q: %w", name, d.exchange, d.key, err)
		}
	}
	return nil
}

// Teardown deletes the queues and the exchange if this run declared them, unless keep. A
// binding to a queue or exchange the run did not declare is left in place.
func (d *rabbitDriver) Teardown(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.opts.Keep {
		return nil
	}
	var errs []error
	for s := 0; s < d.subs; s++ {
		if !d.created(s) {
			continue
		}
		name := d.queueOf(s)
		err := d.withChannel(func(ch *amqp.Channel) error {
			_, err := ch.QueueDelete(name, false, false, false)
			return err
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("rabbitmq: delete queue %s: %w", name, err))
		} else {
			d.setCreated(s, false)
		}
	}
	if d.exchangeCreated {
		err := d.withChannel(func(ch *amqp.Channel) error { return ch.ExchangeDelete(d.exchange, false, false) })
		if err != nil {
			errs = append(errs, fmt.Errorf("rabbitmq: delete exchange %s: %w", d.exchange, err))
		} else {
			d.exchangeCreated = false
		}
	}
	return errors.Join(errs...)
}

// DestinationExists reports whether the queue exists (the conformance suite checks Setup and
// Teardown with it).
func (d *rabbitDriver) DestinationExists(context.Context) (exists, applicable bool, err error) {
	exists, err = d.queueExists()
	return exists, true, err
}

// SubscriptionExists reports whether subscription sub's queue exists (the fan-out conformance
// test checks Setup and Teardown with it).
func (d *rabbitDriver) SubscriptionExists(_ context.Context, sub int) (exists, applicable bool, err error) {
	exists, err = d.queueNamedExists(d.queueOf(sub))
	return exists, true, err
}

// Close closes the admin connection. Idempotent; bounded against a dead broker.
func (d *rabbitDriver) Close() error {
	d.closeOnce.Do(func() {
		d.adminMu.Lock()
		d.closed = true
		conn := d.admin
		d.adminMu.Unlock()
		closeConn(conn)
	})
	return nil
}

func closeConn(c *amqp.Connection) {
	if c != nil && !c.IsClosed() {
		_ = c.CloseDeadline(time.Now().Add(closeTimeout))
	}
}

// NewPublisher opens publisher connection id with one channel, in confirm mode unless
// confirms is off. It re-opens them by itself if they die (see the package comment).
func (d *rabbitDriver) NewPublisher(ctx context.Context, id int) (driver.Publisher, error) {
	return d.newPublisher(ctx, id)
}

// NewConsumer opens consumer connection id with one channel and the prefetch QoS; Start
// subscribes. It re-subscribes by itself if the connection dies (see the package comment).
func (d *rabbitDriver) NewConsumer(ctx context.Context, id int) (driver.Consumer, error) {
	return d.newSubscriber(ctx, 0, id)
}

// NewSubscriber opens consumer connection id of subscription sub: like NewConsumer, on the
// subscription's queue (see Setup).
func (d *rabbitDriver) NewSubscriber(ctx context.Context, sub, id int) (driver.Consumer, error) {
	return d.newSubscriber(ctx, sub, id)
}

// fanOut reports whether the options allow several subscriptions (Spec.FanOut): a stream is
// read by every consumer, so its consumers cannot share a subscription's messages.
func fanOut(o driver.Options) bool { return o.(*Options).QueueType != "stream" }

// optionsFrom accepts the decoded options block (or nil for all defaults).
func optionsFrom(v any) (*Options, error) { return driver.Prepared[Options]("rabbitmq", v) }

// addrOf writes the broker address without credentials: amqp://host:port/vhost.
func addrOf(u amqp.URI) string {
	vhost := "/"
	if u.Vhost != "/" {
		vhost = "/" + url.PathEscape(u.Vhost)
	}
	return u.Scheme + "://" + net.JoinHostPort(u.Host, strconv.Itoa(u.Port)) + vhost
}
