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
// broker's reply text. Without confirms Send returns no Ack (fire-and-forget).
//
// Consuming: consumers of classic and quorum queues share the queue's messages (each message
// reaches one consumer). A stream is not consumed destructively: every consumer reads every
// message from the point it attached ("x-stream-offset": "next"), like a fan-out.
// Acknowledgements (unless auto_ack) are sent with multiple=true, covering every delivery up
// to the last one: once half the prefetch window is unacknowledged, or when no further
// delivery arrived for 1 ms. A busy consumer so sends one ack per prefetch/2 messages, a
// bursty one one per burst (measured: 1 ack per ~65 deliveries instead of 1 per 2 with
// ack-when-idle), and the broker's window never stalls (an ack is due long before prefetch
// messages are outstanding, and 1 ms after the last delivery at the latest). Acks do not
// enter the measured latency: receivedAt is taken before the callback. A message is
// delivered to the callback before it is acknowledged (at-least-once); Close acknowledges
// what was delivered, so the broker requeues only messages the callback never saw.
//
// Broker death: Send fails once the connection is known to be dead (heartbeat every 5 s, or
// a socket error), and a socket write that blocks for 10 s (a broker that stopped reading,
// or memory-alarm flow control that long) kills the connection too, so Send never blocks
// forever; outstanding Acks then fail. Consumers stop receiving (their delivery channel
// closes) and Close returns promptly. There is no automatic reconnection: a publisher or
// consumer whose connection died stays dead for the rest of the run.
package rabbitdrv

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
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
	if key == "" {
		key = q
	}
	if o.Exchange == "" && key != q {
		return nil, fmt.Errorf("rabbitmq: routing_key %q with the default exchange would route away from the queue %q; leave routing_key unset or name an exchange", key, q)
	}

	raw := strings.TrimSpace(cfg.URL)
	if raw == "" {
		raw = "amqp://guest:guest@127.0.0.1:5672/"
	}
	uri, err := amqp.ParseURI(raw)
	if err != nil {
		// The parser's message may quote the URL; do not repeat it (it may hold a password).
		return nil, fmt.Errorf("rabbitmq: invalid url %s (want amqp://user:password@host:port/vhost)", redactURL(raw))
	}
	if o.PasswordEnv != "" {
		pw, ok := os.LookupEnv(o.PasswordEnv)
		if !ok {
			return nil, fmt.Errorf("rabbitmq: password_env names %s, but that environment variable is not set", o.PasswordEnv)
		}
		uri.Password = pw
	}
	d := &rabbitDriver{
		cfg:    cfg,
		opts:   o,
		queue:  q,
		key:    key,
		url:    raw,
		uri:    uri,
		addr:   addrOf(uri),
		secret: uri.Password,
	}
	conn, err := d.dial(ctx, "mqbench-admin")
	if err != nil {
		return nil, err
	}
	d.admin = conn
	return d, nil
}

type rabbitDriver struct {
	cfg    driver.Config
	opts   *Options
	queue  string
	key    string // routing key of publishes and of the binding
	url    string // as given (may hold credentials): only for amqp.DialConfig
	uri    amqp.URI
	addr   string // without credentials
	secret string // the password: never printed

	admin *amqp.Connection

	mu              sync.Mutex
	queueCreated    bool
	exchangeCreated bool

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
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	props := amqp.NewConnectionProperties()
	props.SetClientConnectionName(name)
	cfg := amqp.Config{
		SASL:       []amqp.Authentication{&amqp.PlainAuth{Username: d.uri.Username, Password: d.uri.Password}},
		Vhost:      d.uri.Vhost,
		Heartbeat:  heartbeat,
		Properties: props,
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
			return deadlineConn{conn}, nil
		},
	}
	if d.uri.Scheme == "amqps" {
		cfg.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, ServerName: d.uri.Host}
	}
	conn, err := amqp.DialConfig(d.url, cfg)
	if err != nil {
		return nil, d.classify(err)
	}
	return conn, nil
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
	if isUnreachable(err) {
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

// isUnreachable tells "could not reach a broker" from "a broker answered with an error".
func isUnreachable(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) ||
		errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, context.DeadlineExceeded)
}

// withChannel runs f on a fresh channel of the admin connection and closes it afterwards (a
// failed declaration has closed it already).
func (d *rabbitDriver) withChannel(f func(*amqp.Channel) error) error {
	ch, err := d.admin.Channel()
	if err != nil {
		return fmt.Errorf("rabbitmq: open channel: %w", err)
	}
	defer ch.Close()
	return f(ch)
}

// queueExists checks with a passive declaration.
func (d *rabbitDriver) queueExists() (bool, error) {
	err := d.withChannel(func(ch *amqp.Channel) error {
		_, err := ch.QueueDeclarePassive(d.queue, false, false, false, false, nil)
		return err
	})
	return exists(err, "queue", d.queue)
}

func (d *rabbitDriver) exchangeExists() (bool, error) {
	err := d.withChannel(func(ch *amqp.Channel) error {
		return ch.ExchangeDeclarePassive(d.opts.Exchange, d.opts.ExchangeType, *d.opts.Durable, false, false, false, nil)
	})
	return exists(err, "exchange", d.opts.Exchange)
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
// and binding when an exchange is named. It records what it declared, for Teardown. An
// existing queue is used as it is (its type and arguments are not compared).
func (d *rabbitDriver) Setup(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	o := d.opts
	ok, err := d.queueExists()
	if err != nil {
		return err
	}
	if !ok {
		if !*o.Create {
			return fmt.Errorf("rabbitmq: queue %s does not exist at %s and create is false", d.queue, d.addr)
		}
		err := d.withChannel(func(ch *amqp.Channel) error {
			_, err := ch.QueueDeclare(d.queue, *o.Durable, false, false, false, amqp.Table{"x-queue-type": o.QueueType})
			return err
		})
		if err != nil {
			return fmt.Errorf("rabbitmq: declare %s queue %s: %w", o.QueueType, d.queue, err)
		}
		d.queueCreated = true
	}
	if o.Exchange == "" {
		return nil
	}
	ok, err = d.exchangeExists()
	if err != nil {
		return err
	}
	if !ok {
		if !*o.Create {
			return fmt.Errorf("rabbitmq: exchange %s does not exist at %s and create is false", o.Exchange, d.addr)
		}
		err := d.withChannel(func(ch *amqp.Channel) error {
			return ch.ExchangeDeclare(o.Exchange, o.ExchangeType, *o.Durable, false, false, false, nil)
		})
		if err != nil {
			return fmt.Errorf("rabbitmq: declare %s exchange %s: %w", o.ExchangeType, o.Exchange, err)
		}
		d.exchangeCreated = true
	}
	err = d.withChannel(func(ch *amqp.Channel) error { return ch.QueueBind(d.queue, d.key, o.Exchange, false, nil) })
	if err != nil {
		return fmt.Errorf("rabbitmq: bind queue %s to exchange %s with routing key %q: %w", d.queue, o.Exchange, d.key, err)
	}
	return nil
}

// Teardown deletes the queue and the exchange if this run declared them, unless keep. A
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
	if d.queueCreated {
		err := d.withChannel(func(ch *amqp.Channel) error {
			_, err := ch.QueueDelete(d.queue, false, false, false)
			return err
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("rabbitmq: delete queue %s: %w", d.queue, err))
		} else {
			d.queueCreated = false
		}
	}
	if d.exchangeCreated {
		err := d.withChannel(func(ch *amqp.Channel) error { return ch.ExchangeDelete(d.opts.Exchange, false, false) })
		if err != nil {
			errs = append(errs, fmt.Errorf("rabbitmq: delete exchange %s: %w", d.opts.Exchange, err))
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

// Close closes the admin connection. Idempotent; bounded against a dead broker.
func (d *rabbitDriver) Close() error {
	d.closeOnce.Do(func() { closeConn(d.admin) })
	return nil
}

func closeConn(c *amqp.Connection) {
	if c != nil && !c.IsClosed() {
		_ = c.CloseDeadline(time.Now().Add(closeTimeout))
	}
}

// NewPublisher opens publisher connection id with one channel, in confirm mode unless
// confirms is off.
func (d *rabbitDriver) NewPublisher(ctx context.Context, id int) (driver.Publisher, error) {
	conn, err := d.dial(ctx, fmt.Sprintf("mqbench-pub-%d", id))
	if err != nil {
		return nil, err
	}
	ch, err := conn.Channel()
	if err != nil {
		closeConn(conn)
		return nil, fmt.Errorf("rabbitmq: open channel: %w", err)
	}
	o := d.opts
	if *o.Confirms {
		if err := ch.Confirm(false); err != nil {
			closeConn(conn)
			return nil, fmt.Errorf("rabbitmq: confirm mode: %w", err)
		}
	}
	mode := amqp.Transient
	if *o.Persistent {
		mode = amqp.Persistent
	}
	return newPublisher(conn, ch, o.Exchange, d.key, mode, *o.Confirms, o.Mandatory), nil
}

// NewConsumer opens consumer connection id with one channel and the prefetch QoS; Start
// subscribes.
func (d *rabbitDriver) NewConsumer(ctx context.Context, id int) (driver.Consumer, error) {
	conn, err := d.dial(ctx, fmt.Sprintf("mqbench-sub-%d", id))
	if err != nil {
		return nil, err
	}
	ch, err := conn.Channel()
	if err != nil {
		closeConn(conn)
		return nil, fmt.Errorf("rabbitmq: open channel: %w", err)
	}
	o := d.opts
	if err := ch.Qos(o.Prefetch, 0, false); err != nil {
		closeConn(conn)
		return nil, fmt.Errorf("rabbitmq: basic.qos prefetch %d: %w", o.Prefetch, err)
	}
	c := &consumer{
		conn:     conn,
		ch:       ch,
		queue:    d.queue,
		tag:      fmt.Sprintf("mqbench-%s-%d", d.cfg.RunID, id),
		autoAck:  o.AutoAck,
		ackEvery: max(1, o.Prefetch/2),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	if o.QueueType == "stream" {
		c.args = amqp.Table{"x-stream-offset": "next"}
	}
	return c, nil
}

// optionsFrom accepts the decoded options block (or nil for all defaults).
func optionsFrom(v any) (*Options, error) {
	var o Options
	switch v := v.(type) {
	case nil:
	case *Options:
		if v != nil {
			o = *v
		}
	case Options:
		o = v
	default:
		return nil, fmt.Errorf("rabbitmq: options of type %T, want *rabbitdrv.Options", v)
	}
	o.Defaults()
	if errs := o.Validate(); len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Field + ": " + e.Msg
		}
		return nil, fmt.Errorf("rabbitmq: invalid options: %s", strings.Join(msgs, "; "))
	}
	return &o, nil
}

// addrOf writes the broker address without credentials: amqp://host:port/vhost.
func addrOf(u amqp.URI) string {
	vhost := "/"
	if u.Vhost != "/" {
		vhost = "/" + url.PathEscape(u.Vhost)
	}
	return u.Scheme + "://" + net.JoinHostPort(u.Host, strconv.Itoa(u.Port)) + vhost
}

// redactURL drops the user info of a URL.
func redactURL(raw string) string {
	scheme := strings.Index(raw, "://")
	at := strings.LastIndex(raw, "@")
	if scheme >= 0 && at > scheme {
		return raw[:scheme+3] + raw[at+1:]
	}
	if at >= 0 {
		return raw[at+1:]
	}
	return raw
}
