// Package nsqdrv is mqbench's NSQ driver: go-nsq's Producer (PUB) or, with publish_batch,
// MPUB batches written on a go-nsq connection (each acknowledged by nsqd's OK), and go-nsq's
// Consumer (SUB to one channel, MaxInFlight = max_in_flight, every message FINished after
// delivery), talking to one nsqd directly (no nsqlookupd).
//
// Every publisher and consumer is its own TCP connection, so "producers: 25" is 25
// connections. The run's consumers share one channel (named per run: mqbench-<run id>), so
// each message reaches one of them. Setup creates the topic and that channel through nsqd's
// HTTP API before anything is published, so messages sent before a consumer connects wait
// in the channel; Teardown deletes the topic when the run created it (unless keep), otherwise
// the channel when the run created it.
//
// TLS is the common tls block (every TCP connection upgrades after IDENTIFY; an https://
// http_address uses it for the HTTP API too); an nsqd that requires AUTH gets the secret from
// auth_secret_env or auth_secret_file, which no message repeats. A TLS refusal is exit 113.
package nsqdrv

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nsqio/go-nsq"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

const (
	// dialTimeout bounds connecting to nsqd, so an unreachable one is reported quickly.
	dialTimeout = 2 * time.Second
	// httpTimeout bounds one HTTP API call.
	httpTimeout = 5 * time.Second
	// closeWait bounds how long a consumer's Close waits for go-nsq to stop.
	closeWait = 5 * time.Second
)

// quiet discards go-nsq's log lines (connection chatter on every start and stop); errors reach
// the caller through Send, the Ack and the consumer's reconnects.
var quiet = log.New(io.Discard, "", 0)

// Open checks that nsqd answers (a TCP IDENTIFY + NOP through a producer, and GET /ping on its
// HTTP API) and returns the run's driver.
func Open(ctx context.Context, cfg driver.Config) (driver.Driver, error) {
	o, err := optionsFrom(cfg.Options)
	if err != nil {
		return nil, err
	}
	if cfg.Destination == "" {
		return nil, errors.New("nsq: destination (topic) is empty")
	}
	if err := checkTopic(cfg.Destination, o); err != nil {
		return nil, fmt.Errorf("nsq: %w", err)
	}
	if strings.EqualFold(strings.TrimSpace(cfg.URL), "embedded") {
		return nil, errors.New(`nsq: url "embedded" is only supported by the nats broker; give an nsq:// URL`)
	}
	addr, err := tcpAddress(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("nsq: %w", err)
	}
	if cfg.Subscriptions > 1 {
		return nil, fmt.Errorf("nsq: %d subscriptions are not supported (one channel per run)", cfg.Subscriptions)
	}
	scheme, httpAddr := "http", ""
	if o.HTTPAddress != "" {
		if scheme, httpAddr, err = splitHTTPAddress(o.HTTPAddress); err != nil {
			return nil, fmt.Errorf("nsq: http_address: %w", err)
		}
	} else {
		host, port, _ := net.SplitHostPort(addr)
		p, _ := strconv.Atoi(port)
		httpAddr = net.JoinHostPort(host, strconv.Itoa(p+1))
	}
	tlsConf, secret, err := o.security(addr)
	if err != nil {
		return nil, err
	}
	channel := o.Channel
	if channel == "" {
		run := cfg.RunID
		if run == "" {
			run = strconv.FormatInt(time.Now().UnixNano(), 10)
		}
		channel = channelName(run)
	}
	d := &nsqDriver{
		cfg:     cfg,
		opts:    o,
		addr:    addr,
		api:     scheme + "://" + httpAddr,
		channel: channel,
		tls:     tlsConf,
		secret:  secret,
	}
	var apiTLS *tls.Config
	if scheme == "https" {
		if apiTLS = tlsConf; apiTLS == nil {
			apiTLS = &tls.Config{MinVersion: tls.VersionTLS12} // the system's roots
		}
	}
	d.http = httpClient(apiTLS)
	// The TCP protocol first: that is what the url names.
	if tlsConf == nil {
		if err := probePlain(ctx, addr); err != nil {
			return nil, d.connectError(err, addr)
		}
	}
	p, err := d.newProducer()
	if err != nil {
		return nil, err
	}
	err = p.Ping()
	p.Stop()
	if err != nil {
		return nil, d.connectError(err, addr)
	}
	pctx, cancel := context.WithTimeout(ctx, dialTimeout+time.Second)
	defer cancel()
	if _, err := d.call(pctx, http.MethodGet, "/ping", nil); err != nil {
		if driver.IsUnreachable(err) && !driver.TLSRefused(scheme == "https", err) {
			return nil, &driver.UnreachableError{Broker: "nsq", Address: httpAddr + " (nsqd HTTP API, option http_address)", Err: err}
		}
		return nil, err
	}
	return d, nil
}

var notInName = regexp.MustCompile(`[^.a-zA-Z0-9_-]`)

// channelName is the run's default channel: mqbench-<run id>, with characters nsqd does not
// accept replaced by _ and cut to nsqd's 64.
func channelName(run string) string {
	n := "mqbench-" + notInName.ReplaceAllString(run, "_")
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

type nsqDriver struct {
	cfg     driver.Config
	opts    *Options
	addr    string // nsqd's TCP address, host:port
	api     string // nsqd's HTTP API, http://host:port
	channel string
	http    *http.Client
	tls     *tls.Config // every TCP connection's (nil: plain)
	secret  string      // AUTH's secret ("": none)

	mu             sync.Mutex
	topicCreated   bool
	channelCreated bool
}

// config is go-nsq's configuration for every connection of the run.
func (d *nsqDriver) config() *nsq.Config {
	c := nsq.NewConfig()
	c.DialTimeout = dialTimeout
	c.UserAgent = "mqbench"
	c.MaxInFlight = d.opts.MaxInFlight
	c.OutputBufferSize = d.opts.OutputBufferSize
	c.OutputBufferTimeout = d.opts.OutputBufferTimeout
	// A 1MB message must be written within the timeout, also on a busy machine.
	c.WriteTimeout = 10 * time.Second
	applySecurity(c, d.tls, d.secret)
	return c
}

// connectError: nothing answered at addr (unreachable), or nsqd refused this client (its
// TLS, its certificate, its auth secret).
func (d *nsqDriver) connectError(err error, addr string) error {
	if driver.TLSRefused(d.tls != nil, err) {
		return fmt.Errorf("nsq: %s: TLS refused: %w", addr, err)
	}
	if driver.IsUnreachable(err) {
		return &driver.UnreachableError{Broker: "nsq", Address: addr, Err: err}
	}
	return fmt.Errorf("nsq: %s: %w", addr, err)
}

func (d *nsqDriver) newProducer() (*nsq.Producer, error) {
	p, err := nsq.NewProducer(d.addr, d.config())
	if err != nil {
		return nil, fmt.Errorf("nsq: %w", err)
	}
	p.SetLogger(quiet, nsq.LogLevelError)
	return p, nil
}

// Setup creates the topic and the run's channel (POST /topic/create, /channel/create; both
// are no-ops for ones that exist), recording which of them this run created.
func (d *nsqDriver) Setup(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	topic, channel, err := d.exists(ctx)
	if err != nil {
		return err
	}
	q := "?topic=" + escape(d.cfg.Destination)
	if _, err := d.call(ctx, http.MethodPost, "/topic/create"+q, nil); err != nil {
		return err
	}
	d.topicCreated = !topic
	if _, err := d.call(ctx, http.MethodPost, "/channel/create"+q+"&channel="+escape(d.channel), nil); err != nil {
		return err
	}
	d.channelCreated = !channel
	return nil
}

// escape: '#' (of #ephemeral) is the only character of a valid name that needs it in a query.
func escape(name string) string { return strings.ReplaceAll(name, "#", "%23") }

// Teardown deletes the topic if this run created it (unless keep), otherwise the run's
// channel if this run created it.
func (d *nsqDriver) Teardown(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	q := "?topic=" + escape(d.cfg.Destination)
	if d.topicCreated && !d.opts.Keep {
		if _, err := d.call(ctx, http.MethodPost, "/topic/delete"+q, nil); err != nil {
			return err
		}
		d.topicCreated, d.channelCreated = false, false
		return nil
	}
	if d.channelCreated {
		if _, err := d.call(ctx, http.MethodPost, "/channel/delete"+q+"&channel="+escape(d.channel), nil); err != nil {
			return err
		}
		d.channelCreated = false
	}
	return nil
}

// DestinationExists reports whether the topic exists (the conformance suite checks Setup and
// Teardown with it).
func (d *nsqDriver) DestinationExists(ctx context.Context) (exists, applicable bool, err error) {
	topic, _, err := d.exists(ctx)
	return topic, true, err
}

// Close holds nothing beyond idle HTTP connections.
func (d *nsqDriver) Close() error {
	d.http.CloseIdleConnections()
	return nil
}

// NewPublisher opens publisher connection id, connected now so that an nsqd gone since Open
// is reported here.
func (d *nsqDriver) NewPublisher(_ context.Context, id int) (driver.Publisher, error) {
	if d.opts.PublishBatch > 1 {
		return newBatchPublisher(d)
	}
	p, err := d.newProducer()
	if err != nil {
		return nil, err
	}
	if err := p.Ping(); err != nil {
		p.Stop()
		return nil, d.connectError(err, d.addr)
	}
	return &publisher{p: p, topic: d.cfg.Destination}, nil
}

// NewConsumer opens consumer connection id on the run's channel; it subscribes at Start.
func (d *nsqDriver) NewConsumer(_ context.Context, id int) (driver.Consumer, error) {
	c, err := nsq.NewConsumer(d.cfg.Destination, d.channel, d.config())
	if err != nil {
		return nil, fmt.Errorf("nsq: consumer %d: %w", id, err)
	}
	c.SetLogger(quiet, nsq.LogLevelError)
	return &consumer{c: c, addr: d.addr, tls: d.tls != nil}, nil
}

// optionsFrom accepts the decoded options block (or nil for all defaults).
func optionsFrom(v any) (*Options, error) { return driver.Prepared[Options]("nsq", v) }
