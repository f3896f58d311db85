// Package pulsardrv is mqbench's Apache Pulsar driver, on the official Go client
// (github.com/apache/pulsar-client-go): producers send with SendAsync and the broker's send
// receipt resolves each message's Ack (publish latency = receipt); consumers receive on the
// run's subscription and acknowledge every message after delivery (grouped, ack_group_time).
//
// Every publisher and consumer has its own client, so its own TCP connection: "producers: 25"
// is 25 connections, as with the other drivers. Setup creates, through the admin REST API,
// the topic (partitioned when partitions > 0) and, on a persistent topic, each of the run's
// durable subscriptions (mqbench-<run id>, positioned at the end), so messages published
// before a consumer connects wait for it; Teardown deletes the topic when the run created it,
// otherwise the subscriptions it created (keep: neither). A non-persistent topic keeps
// nothing: its subscriptions exist while consumers are connected.
//
// Security: pulsar+ssl:// with the common tls block (CA, client certificate for a broker with
// tlsRequireTrustedClientCertOnConnect, server name), and a token (token_env or token_file)
// for AuthenticationProviderToken, sent on the binary protocol and as a bearer token to the
// admin REST API. With either, Open looks the topic up once through the binary protocol, so a
// refused certificate, handshake or token is named before the run starts (the client library
// itself reports a refused handshake only as "connection error" after retrying).
package pulsardrv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/apache/pulsar-client-go/pulsar"
	plog "github.com/apache/pulsar-client-go/pulsar/log"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

const (
	// dialTimeout bounds connecting to the broker, so an unreachable one is reported quickly.
	dialTimeout = 2 * time.Second
	// httpTimeout bounds one admin REST call (topic deletion with force can take seconds).
	httpTimeout = 15 * time.Second
	// operationTimeout bounds the client's lookups, producer and consumer creation and close.
	operationTimeout = 10 * time.Second
)

var (
	_ driver.Driver = (*pulsarDriver)(nil)
	_ driver.FanOut = (*pulsarDriver)(nil)
)

// Open checks that the broker's binary protocol port and its admin REST API answer, and
// returns the run's driver.
func Open(ctx context.Context, cfg driver.Config) (driver.Driver, error) {
	o, err := optionsFrom(cfg.Options)
	if err != nil {
		return nil, err
	}
	if cfg.Destination == "" {
		return nil, errors.New("pulsar: destination (topic) is empty")
	}
	t, err := parseTopic(cfg.Destination, o)
	if err != nil {
		return nil, fmt.Errorf("pulsar: %w", err)
	}
	addr, useTLS, err := brokerAddress(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("pulsar: %w", err)
	}
	adminURL := o.AdminURL
	if adminURL == "" {
		adminURL = defaultAdminURL(addr, useTLS)
	}
	sec, err := newSecurity(o, addr, useTLS, adminURL)
	if err != nil {
		return nil, err
	}
	run := cfg.RunID
	if run == "" {
		run = strconv.FormatInt(time.Now().UnixNano(), 10)
	}
	sub := o.Subscription
	if sub == "" {
		sub = "mqbench-" + run
	}
	d := &pulsarDriver{
		cfg:   cfg,
		opts:  o,
		topic: t,
		addr:  addr,
		sec:   sec,
		admin: &admin{base: adminURL, http: &http.Client{Timeout: httpTimeout, Transport: sec.adminTransport()}, token: sec.token},
		sub:   sub,
		nSubs: max(cfg.Subscriptions, 1),
	}
	// The binary protocol first: that is what the url names. The client library connects
	// lazily and retries for its operation timeout, so a plain dial says "unreachable" at once.
	conn, err := (&net.Dialer{Timeout: dialTimeout}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &driver.UnreachableError{Broker: "pulsar", Address: addr, Err: err}
	}
	conn.Close()
	pctx, cancel := context.WithTimeout(ctx, dialTimeout+time.Second)
	defer cancel()
	if _, err := d.admin.call(pctx, http.MethodGet, "/clusters", ""); err != nil {
		if driver.IsUnreachable(err) {
			return nil, &driver.UnreachableError{Broker: "pulsar", Address: adminURL + " (admin REST API, option admin_url)", Err: err}
		}
		return nil, err
	}
	if sec.tls != nil || sec.token != "" {
		// The client library connects lazily and retries a refused handshake until its
		// operation timeout: one lookup now tells a refusal (certificate, token) before
		// the run starts.
		if err := d.probe(ctx); err != nil {
			return nil, err
		}
	}
	return d, nil
}

type pulsarDriver struct {
	cfg   driver.Config
	opts  *Options
	topic topic
	addr  string // the broker's host:port
	sec   security
	admin *admin
	sub   string // the run's subscription name (subscription 0 when there is one)
	nSubs int

	mu           sync.Mutex
	topicCreated bool
	subsCreated  []bool

	statsMu sync.Mutex // BrokerStats' CPU meter
	cpu     driver.CPUMeter
}

// subscription returns the name of subscription s: the run's name, with "-<s>" appended
// when the run has several. Not driver.SubscriptionName: the subscription option documents
// this numbering (every one numbered, from 0).
func (d *pulsarDriver) subscription(s int) string {
	if d.nSubs == 1 {
		return d.sub
	}
	return d.sub + "-" + strconv.Itoa(s)
}

// newClient is one client of the run: its own connection to the broker, quiet (the library
// logs every connect, reconnect and close), with its own metrics registry (the library
// registers its collectors with the registry it is given, by default the process's global
// one), and reconnecting at most 2 s apart once the broker is back.
func (d *pulsarDriver) newClient() (pulsar.Client, error) {
	return d.newClientTimeout(operationTimeout)
}

func (d *pulsarDriver) newClientTimeout(opTimeout time.Duration) (pulsar.Client, error) {
	co := pulsar.ClientOptions{
		URL:               "pulsar://" + d.addr,
		ConnectionTimeout: dialTimeout,
		OperationTimeout:  opTimeout,
		Logger:            plog.DefaultNopLogger(),
		MetricsRegisterer: prometheus.NewRegistry(),
	}
	if d.sec.tls != nil {
		co.URL = "pulsar+ssl://" + d.addr
		co.TLSConfig = d.sec.tls
	}
	if d.sec.token != "" {
		co.Authentication = pulsar.NewAuthenticationToken(d.sec.token)
	}
	c, err := pulsar.NewClient(co)
	if err != nil {
		return nil, fmt.Errorf("pulsar: %s", d.sec.scrub(err.Error()))
	}
	return c, nil
}

// Setup creates the topic and, on a persistent topic, the run's subscriptions, recording
// what it created.
func (d *pulsarDriver) Setup(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	// A non-persistent topic is created by its first producer or consumer; only a
	// partitioned one needs creating (its partition count is metadata).
	if d.topic.persistent || d.opts.Partitions > 0 {
		created, err := d.admin.createTopic(ctx, d.topic, d.opts.Partitions)
		if err != nil {
			return err
		}
		d.topicCreated = created
	}
	d.subsCreated = make([]bool, d.nSubs)
	if !d.topic.persistent {
		return nil
	}
	for s := range d.nSubs {
		created, err := d.admin.createSubscription(ctx, d.topic, d.subscription(s))
		if err != nil {
			return err
		}
		d.subsCreated[s] = created
	}
	return nil
}

// Teardown deletes the topic if this run created it, otherwise the subscriptions it created;
// with keep, nothing.
func (d *pulsarDriver) Teardown(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.opts.Keep {
		return nil
	}
	if d.topicCreated {
		if err := d.admin.deleteTopic(ctx, d.topic, d.opts.Partitions > 0); err != nil {
			return err
		}
		d.topicCreated = false
		clear(d.subsCreated)
		return nil
	}
	for s, created := range d.subsCreated {
		if created {
			if err := d.admin.deleteSubscription(ctx, d.topic, d.subscription(s)); err != nil {
				return err
			}
			d.subsCreated[s] = false
		}
	}
	return nil
}

// DestinationExists reports whether the topic exists (the conformance suite checks Setup and
// Teardown with it); not applicable to a non-partitioned non-persistent topic, which exists
// only while someone uses it.
func (d *pulsarDriver) DestinationExists(ctx context.Context) (exists, applicable bool, err error) {
	if !d.topic.persistent && d.opts.Partitions == 0 {
		return false, false, nil
	}
	if d.opts.Partitions > 0 {
		n, err := d.admin.partitions(ctx, d.topic)
		if errors.Is(err, errNotFound) {
			return false, true, nil
		}
		return n > 0, true, err
	}
	_, err = d.admin.stats(ctx, d.topic, false)
	if errors.Is(err, errNotFound) {
		return false, true, nil
	}
	return err == nil, true, err
}

// SubscriptionExists reports whether subscription sub exists on the topic; not applicable to
// a non-persistent topic.
func (d *pulsarDriver) SubscriptionExists(ctx context.Context, sub int) (exists, applicable bool, err error) {
	if !d.topic.persistent {
		return false, false, nil
	}
	st, err := d.admin.stats(ctx, d.topic, d.opts.Partitions > 0)
	if errors.Is(err, errNotFound) {
		return false, true, nil
	}
	if err != nil {
		return false, true, err
	}
	_, exists = st.Subscriptions[d.subscription(sub)]
	return exists, true, nil
}

// Close holds nothing beyond idle HTTP connections: every client belongs to a publisher or
// consumer, closed by its own Close.
func (d *pulsarDriver) Close() error {
	d.admin.http.CloseIdleConnections()
	return nil
}

// optionsFrom accepts the decoded options block (or nil for all defaults).
func optionsFrom(v any) (*Options, error) { return driver.Prepared[Options]("pulsar", v) }
