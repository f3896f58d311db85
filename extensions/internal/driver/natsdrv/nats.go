// Package natsdrv is mqbench's NATS driver: core NATS (fire-and-forget publish, queue
// subscription) and JetStream (acknowledged async publish into a stream, shared pull consumer).
//
// Every publisher and consumer is its own client connection, so "producers: 25" in a scenario
// really is 25 TCP connections. The driver itself holds one more, the admin connection, used to
// detect an unreachable broker and to manage streams and consumers.
//
// Consumers share the messages, they do not each get a copy: in core mode all consumer
// connections of a run join the queue group "mqbench-<run id>"; in JetStream mode they all pull
// from one durable consumer "mqbench-<run id>" that Setup creates (DeliverPolicy new; AckPolicy
// explicit by default, each received message acknowledged once recorded: see option ack). This matches the work-sharing semantics of the other brokers' drivers.
//
// Fan-out (driver.FanOut, Config.Subscriptions > 1): every subscription is its own queue group
// (core) or its own durable consumer on the stream (JetStream), the run's name for the first
// and "<name>-s<n>" for the others, so each receives every message and its consumers share it.
// Setup creates and Teardown deletes every subscription's durable consumer like the first one.
//
// Stamp in a header (driver.HeaderStamp, payload.stamp: header): the stamp is the header
// "mqbench-stamp"'s value in base64 (NATS headers are text; 48 characters), the data the body
// alone; core publishes reuse one message and header, JetStream's each keep their own until
// acknowledged (nats.go may resend them). The consumer decodes it and hands the runner stamp‖data.
//
// URL "embedded" starts a real nats-server (JetStream enabled) inside the process on a random
// 127.0.0.1 port; Close shuts it down and removes its store directory.
package natsdrv

import (
	"context"
	"errors"
	"fmt"
	"github.com/mqbench/xk6-mqbench/internal/redact"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

const (
	// connectTimeout bounds the TCP dial + INFO/CONNECT handshake of every connection, so an
	// unreachable broker is reported within a few seconds.
	connectTimeout = 2500 * time.Millisecond
	// reconnectWait is the pause between reconnect attempts after the broker went away.
	reconnectWait = 250 * time.Millisecond
	// pingInterval makes a silently dead broker (no RST) noticed within ~3 intervals.
	pingInterval = 5 * time.Second
	// flushTimeout bounds Flush calls that come with a context without a deadline.
	flushTimeout = 10 * time.Second
	// writeTimeout bounds one socket write (and so Send, Flush and Close) against a broker
	// that stopped reading; the connection is then dropped and reconnected.
	writeTimeout = 10 * time.Second
	// closeWait bounds how long Close waits for an in-flight delivery callback to return.
	closeWait = 5 * time.Second

	// Pending limits for a consumer's subscription: large, so a consumer that falls behind
	// queues (and the queueing shows in the latency) instead of silently dropping.
	pendingMsgsLimit  = 1_000_000
	pendingBytesLimit = 1 << 30

	// pullHeartbeat is the idle heartbeat a JetStream receiver's pull requests ask for. A pull
	// request dies with the consumer's leader, and a killed server cannot say so: nats.go
	// pulls again only after two heartbeats went missing. Its default (half the 30 s expiry)
	// left a receiver idle for the rest of a fault run after a leader kill (no delivery from
	// 1 s after the kill to the end of the 5 s drain, 1,452 messages still held by the
	// stream); with 1 s it pulls again within about 2 s. An idle receiver gets one
	// heartbeat a second.
	pullHeartbeat = time.Second

	// maxAsyncPending bounds un-acknowledged JetStream publishes per publisher connection.
	maxAsyncPending = 16384

	// embeddedMaxPayload allows the 1 MB cells (payload plus protocol overhead) on the
	// embedded server; an external server keeps its own max_payload (default 1 MB).
	embeddedMaxPayload = 8 << 20
)

// Open connects to the broker (or starts the embedded one) and returns the run's driver.
func Open(ctx context.Context, cfg driver.Config) (driver.Driver, error) {
	o, err := optionsFrom(cfg.Options)
	if err != nil {
		return nil, err
	}
	if cfg.Destination == "" {
		return nil, errors.New("nats: destination (subject) is empty")
	}
	d := &natsDriver{
		cfg:   cfg,
		opts:  o,
		url:   cfg.URL,
		addr:  redact.URL(cfg.URL),
		runID: sanitizeName(cfg.RunID),
	}
	if d.runID == "" {
		d.runID = nuid.Next()
	}
	d.queue = "mqbench-" + d.runID
	d.durable = "mqbench-" + d.runID
	d.subs = max(1, cfg.Subscriptions)
	d.consumersCreated = make([]bool, d.subs)
	if o.Mode == "jetstream" {
		d.stream = o.Stream
		if d.stream == "" {
			d.stream = defaultStreamName(cfg.Destination)
		}
	}

	if strings.EqualFold(strings.TrimSpace(cfg.URL), "embedded") {
		if o.MonitorURL != "" {
			return nil, errors.New("nats: monitor_url does not apply to url embedded (broker stats read the embedded server directly)")
		}
		if err := d.startEmbedded(); err != nil {
			return nil, err
		}
	}

	if d.auth, err = o.authOptions(d.url); err != nil {
		return nil, err
	}
	timeout := connectTimeout
	if dl, ok := ctx.Deadline(); ok {
		if rem := time.Until(dl); rem < timeout {
			timeout = max(rem, 100*time.Millisecond)
		}
	}
	nc, err := nats.Connect(d.url, d.connOptions("mqbench-admin", nil, nats.Timeout(timeout))...)
	if err != nil {
		d.stopEmbedded()
		if driver.IsUnreachable(err, nats.ErrNoServers, nats.ErrTimeout) && !driver.TLSRefused(o.TLS != nil, err) {
			return nil, &driver.UnreachableError{Broker: "nats", Address: d.addr, Err: err}
		}
		return nil, fmt.Errorf("nats: connect to %s: %w", d.addr, err)
	}
	d.admin = nc
	if o.Mode == "jetstream" {
		js, err := jetstream.New(nc)
		if err != nil {
			d.Close()
			return nil, fmt.Errorf("nats: jetstream: %w", err)
		}
		d.js = js
	}
	return d, nil
}

type natsDriver struct {
	cfg   driver.Config
	opts  *Options
	url   string        // what connections dial (the embedded server's URL in embedded mode)
	auth  []nats.Option // TLS, credentials (auth.go)
	addr  string        // url without credentials, for messages
	runID string

	queue   string // core: queue group shared by the run's consumers
	stream  string // jetstream: stream name
	durable string // jetstream: durable pull consumer shared by the run's consumers
	subs    int    // subscriptions (≥ 1): queue / durable, then queueOf / durableOf

	embedded *Embedded // url embedded's server, nil otherwise

	admin *nats.Conn
	js    jetstream.JetStream // on admin; jetstream mode only

	mu               sync.Mutex
	streamCreated    bool
	consumersCreated []bool // jetstream: by subscription, the durable consumers Setup created

	closeOnce sync.Once
}

// connOptions are the options every connection of the run shares. errCB, when set, receives
// asynchronous errors (slow consumer, permissions).
func (d *natsDriver) connOptions(name string, errCB func(error), extra ...nats.Option) []nats.Option {
	opts := []nats.Option{
		nats.Name(name),
		nats.Timeout(connectTimeout),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(reconnectWait),
		nats.ReconnectJitter(50*time.Millisecond, 250*time.Millisecond),
		nats.PingInterval(pingInterval),
		nats.MaxPingsOutstanding(3),
		// Bounds a write to a broker that stopped reading (also bounds Close).
		nats.FlusherTimeout(writeTimeout),
		// Callbacks must not run after Close: the common code may have released what
		// deliver writes to.
		nats.NoCallbacksAfterClientClose(),
		// Without an explicit handler nats.go prints async errors to stderr.
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if errCB != nil {
				errCB(err)
			}
		}),
	}
	opts = append(opts, d.auth...)
	return append(opts, extra...)
}

// connect opens one more client connection to the broker.
func (d *natsDriver) connect(name string, errCB func(error)) (*nats.Conn, error) {
	nc, err := nats.Connect(d.url, d.connOptions(name, errCB)...)
	if err != nil {
		if driver.IsUnreachable(err, nats.ErrNoServers, nats.ErrTimeout) && !driver.TLSRefused(d.opts.TLS != nil, err) {
			return nil, &driver.UnreachableError{Broker: "nats", Address: d.addr, Err: err}
		}
		return nil, fmt.Errorf("nats: connect %s to %s: %w", name, d.addr, err)
	}
	return nc, nil
}

func (d *natsDriver) startEmbedded() error {
	e, err := StartEmbedded()
	if err != nil {
		return err
	}
	d.embedded = e
	d.url = e.URL
	d.addr = d.url + " (embedded)"
	return nil
}

func (d *natsDriver) stopEmbedded() {
	if d.embedded != nil {
		d.embedded.Close()
		d.embedded = nil
	}
}

// Setup creates (or adapts) the JetStream stream and the run's shared durable consumer. Core
// NATS has nothing to set up: subjects exist as soon as someone subscribes.
func (d *natsDriver) Setup(ctx context.Context) error {
	if d.opts.Mode != "jetstream" {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()

	storage := jetstream.FileStorage
	if d.opts.Storage == "memory" {
		storage = jetstream.MemoryStorage
	}
	st, err := d.js.Stream(ctx, d.stream)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
		_, err = d.js.CreateStream(ctx, jetstream.StreamConfig{
			Name:     d.stream,
			Subjects: []string{d.cfg.Destination},
			Storage:  storage,
			Replicas: d.opts.Replicas,
		})
		if err != nil {
			return fmt.Errorf("nats: create stream %s: %w", d.stream, err)
		}
		d.streamCreated = true
	case err != nil:
		return fmt.Errorf("nats: look up stream %s: %w", d.stream, err)
	default:
		sc := st.CachedInfo().Config
		if sc.Storage != storage {
			return fmt.Errorf("nats: stream %s exists with %s storage but the scenario asks for %s; storage of an existing stream cannot be changed (delete the stream or set storage: %s)",
				d.stream, sc.Storage, storage, sc.Storage)
		}
		changed := false
		if !subjectCovered(d.cfg.Destination, sc.Subjects) {
			sc.Subjects = append(sc.Subjects, d.cfg.Destination)
			changed = true
		}
		if sc.Replicas != d.opts.Replicas {
			sc.Replicas = d.opts.Replicas
			changed = true
		}
		if changed {
			if _, err := d.js.UpdateStream(ctx, sc); err != nil {
				return fmt.Errorf("nats: update stream %s: %w", d.stream, err)
			}
		}
	}

	for s := 0; s < d.subs; s++ {
		durable := d.durableOf(s)
		cc := jetstream.ConsumerConfig{
			Durable:       durable,
			Description:   "mqbench run consumer",
			DeliverPolicy: jetstream.DeliverNewPolicy,
			FilterSubject: d.cfg.Destination,
			// A safety net if the run dies before Teardown.
			InactiveThreshold: time.Hour,
			Replicas:          d.opts.Replicas,
		}
		ackConfig(d.opts, &cc) // AckPolicy, AckWait, MaxAckPending (ack.go)
		_, err = d.js.CreateOrUpdateConsumer(ctx, d.stream, cc)
		if err != nil {
			return fmt.Errorf("nats: create consumer %s on stream %s: %w", durable, d.stream, err)
		}
		d.consumersCreated[s] = true
	}
	return nil
}

// durableOf is subscription sub's durable consumer (JetStream).
func (d *natsDriver) durableOf(sub int) string { return driver.SubscriptionName(d.durable, "-", sub) }

// queueOf is subscription sub's queue group (core).
func (d *natsDriver) queueOf(sub int) string { return driver.SubscriptionName(d.queue, "-", sub) }

// Teardown deletes the stream if this run created it (unless keep), otherwise only the run's
// consumer.
func (d *natsDriver) Teardown(ctx context.Context) error {
	if d.opts.Mode != "jetstream" {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.streamCreated && !d.opts.Keep {
		if err := d.js.DeleteStream(ctx, d.stream); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
			return fmt.Errorf("nats: delete stream %s: %w", d.stream, err)
		}
		d.streamCreated = false
		clear(d.consumersCreated)
		return nil
	}
	var errs []error
	for s, created := range d.consumersCreated {
		if !created {
			continue
		}
		durable := d.durableOf(s)
		err := d.js.DeleteConsumer(ctx, d.stream, durable)
		if err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) && !errors.Is(err, jetstream.ErrStreamNotFound) {
			errs = append(errs, fmt.Errorf("nats: delete consumer %s: %w", durable, err))
			continue
		}
		d.consumersCreated[s] = false
	}
	return errors.Join(errs...)
}

// SubscriptionExists reports whether subscription sub's durable consumer exists (the fan-out
// conformance test checks Setup and Teardown with it). applicable is false in core mode, where
// a queue group is no broker object.
func (d *natsDriver) SubscriptionExists(ctx context.Context, sub int) (exists, applicable bool, err error) {
	if d.opts.Mode != "jetstream" {
		return false, false, nil
	}
	_, err = d.js.Consumer(ctx, d.stream, d.durableOf(sub))
	if errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
		return false, true, nil
	}
	return err == nil, true, err
}

// DestinationExists reports whether the JetStream stream exists (the conformance tests use it to
// check Teardown). applicable is false in core mode, where there is no broker object.
func (d *natsDriver) DestinationExists(ctx context.Context) (exists, applicable bool, err error) {
	if d.opts.Mode != "jetstream" {
		return false, false, nil
	}
	_, err = d.js.Stream(ctx, d.stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return false, true, nil
	}
	return err == nil, true, err
}

var _ driver.Topology = (*natsDriver)(nil)
var _ driver.Identifier = (*natsDriver)(nil)

// Server is the version the server sent in its INFO when the admin connection connected
// ("NATS Server 2.15.2"); with url embedded it is the server built into bin/k6.
func (d *natsDriver) Server(context.Context) string {
	if d.admin == nil {
		return ""
	}
	if v := d.admin.ConnectedServerVersion(); v != "" {
		return "NATS Server " + v
	}
	return ""
}

// Placement names the JetStream stream's leader and its other replicas by server name
// (server_name; the project's clusters name node N "n<N>"). Core NATS has no placement.
func (d *natsDriver) Placement(ctx context.Context) (leader string, followers []string, err error) {
	if d.opts.Mode != "jetstream" {
		return "", nil, errors.New("core NATS subjects have no leader: name the node to kill")
	}
	s, err := d.js.Stream(ctx, d.stream)
	if err != nil {
		return "", nil, err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return "", nil, err
	}
	if info.Cluster == nil {
		return "", nil, errors.New("the stream reports no cluster: a single server")
	}
	for _, p := range info.Cluster.Replicas {
		followers = append(followers, p.Name)
	}
	return info.Cluster.Leader, followers, nil
}

// Close closes the admin connection and stops the embedded server. Idempotent.
func (d *natsDriver) Close() error {
	d.closeOnce.Do(func() {
		if d.admin != nil {
			d.admin.Close()
		}
		d.stopEmbedded()
	})
	return nil
}

// NewPublisher opens publisher connection id.
func (d *natsDriver) NewPublisher(ctx context.Context, id int) (driver.Publisher, error) {
	nc, err := d.connect(fmt.Sprintf("mqbench-pub-%d", id), nil)
	if err != nil {
		return nil, err
	}
	if d.opts.Mode != "jetstream" {
		return &corePublisher{nc: nc, subject: d.cfg.Destination}, nil
	}
	js, err := jetstream.New(nc,
		jetstream.WithPublishAsyncMaxPending(maxAsyncPending),
		// The library resolves a future with ErrAsyncPublishTimeout after AckTimeout, which
		// also frees its pending slot; Ack.Wait needs no timer of its own.
		jetstream.WithPublishAsyncTimeout(d.opts.AckTimeout),
	)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("nats: jetstream: %w", err)
	}
	return &jsPublisher{
		nc:      nc,
		js:      js,
		subject: d.cfg.Destination,
		// When maxAsyncPending acks are outstanding, Send waits up to AckTimeout for a slot
		// (back-pressure shows as latency) before failing.
		pubOpts: []jetstream.PublishOpt{jetstream.WithStallWait(d.opts.AckTimeout)},
	}, nil
}

// NewConsumer opens consumer connection id.
func (d *natsDriver) NewConsumer(ctx context.Context, id int) (driver.Consumer, error) {
	return d.NewSubscriber(ctx, 0, id)
}

// NewSubscriber opens consumer connection id of subscription sub: like NewConsumer, in the
// subscription's queue group (core) or on its durable consumer (JetStream).
func (d *natsDriver) NewSubscriber(ctx context.Context, sub, id int) (driver.Consumer, error) {
	if sub < 0 || sub >= d.subs {
		return nil, fmt.Errorf("nats: subscription %d out of range (the run has %d)", sub, d.subs)
	}
	c := &consumer{}
	nc, err := d.connect(fmt.Sprintf("mqbench-sub-%d", id), c.onAsyncError)
	if err != nil {
		return nil, err
	}
	c.nc = nc
	c.subject = d.cfg.Destination
	if d.opts.Mode == "jetstream" {
		js, err := jetstream.New(nc)
		if err != nil {
			nc.Close()
			return nil, fmt.Errorf("nats: jetstream: %w", err)
		}
		c.js, c.stream, c.durable, c.batch = js, d.stream, d.durableOf(sub), d.opts.FetchBatch
		c.settler = newSettler(d.opts, c.onAsyncError)
	} else {
		c.queue = d.queueOf(sub)
	}
	return c, nil
}

// optionsFrom accepts the decoded options block (or nil for all defaults).
func optionsFrom(v any) (*Options, error) { return driver.Prepared[Options]("nats", v) }

// defaultStreamName derives a stream name from a subject: upper-cased, anything but letters
// and digits replaced by "_" ("bench.latency" → "BENCH_LATENCY").
func defaultStreamName(subject string) string {
	b := []byte(strings.ToUpper(subject))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

// sanitizeName makes s usable as a NATS consumer / queue name (no ".", "*", ">", spaces).
func sanitizeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

// subjectCovered reports whether subject is matched by one of the (possibly wildcard) filters.
func subjectCovered(subject string, filters []string) bool {
	for _, f := range filters {
		if subjectMatches(subject, f) {
			return true
		}
	}
	return false
}

func subjectMatches(subject, filter string) bool {
	st := strings.Split(subject, ".")
	ft := strings.Split(filter, ".")
	for i, f := range ft {
		if f == ">" {
			return len(st) > i
		}
		if i >= len(st) || (f != "*" && f != st[i]) {
			return false
		}
	}
	return len(st) == len(ft)
}
