// Package zmqdrv is mqbench's ZeroMQ driver: brokerless PUSH/PULL and PUB/SUB over TCP, with
// the pure-Go github.com/go-zeromq/zmq4 (no libzmq, no cgo).
//
// There is no broker. The run's producers and consumers talk ZMTP to each other, which is
// the comparison point benchmark studies call "brokerless": the url is not a server to reach
// but the endpoint the consumers bind.
//
// Sockets. Consumer i binds its socket (PULL, or SUB subscribed to the destination) on the
// url's host at port+i; the runner opens every consumer before any producer, and each
// producer then connects to every consumer endpoint of its destination, one socket per
// endpoint. Binding on the consumer side solves ZeroMQ's slow joiner: when a producer exists,
// every consumer is already listening, and for pub-sub a new producer waits until each SUB's
// subscription has reached it before it may send (a PUB drops what matches no subscription).
//
//   - push-pull: a producer sends each message to one consumer, round-robin over the
//     endpoints, which is how libzmq's PUSH distributes over its peers. zmq4 v0.17.0's PUSH
//     writes every message to every connected peer instead, so the driver keeps one PUSH per
//     consumer (each with one peer) and does the round-robin itself: every message reaches
//     exactly one consumer. A PUSH write blocks while the consumer's TCP buffers are full (zmq4
//     has no queue in front of it); a send blocked longer than send_timeout, or whose context
//     ends, closes the producer's sockets and fails.
//   - pub-sub: a producer's PUB per subscriber queues each message (topic frame = the
//     destination, then the payload) and writes it to the subscriber in the background; a
//     queue past hwm drops messages silently, as a ZeroMQ PUB does at its high-water mark, and
//     the ledger shows them as lost. Every consumer receives every message, so consumers > 1
//     count consumers-1 duplicates per message in a ledger that expects one receipt.
//
// Sends are fire-and-forget: ZeroMQ has no acknowledgement, so Send returns a nil Ack (no
// publish latency) and the ledger alone tells what arrived. A consumer that closes while
// producers still send loses what was in flight to it.
//
// Several destinations: each has its own driver, and consumer ids are numbered across them,
// so every consumer still has its own port; a producer connects to its destination's
// consumers only.
package zmqdrv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

const (
	// dialTimeout bounds one TCP connect to a consumer endpoint.
	dialTimeout = 2 * time.Second
	// dialRetries is how often a refused connect is retried (250 ms apart).
	dialRetries = 4
	// subscribeWait bounds how long a new PUB waits for its subscriber's subscription.
	subscribeWait = 5 * time.Second
	// closeWait bounds how long a consumer's Close waits for its receive goroutine.
	closeWait = 5 * time.Second
)

// Open checks the options and the endpoint; there is nothing to connect to yet.
func Open(_ context.Context, cfg driver.Config) (driver.Driver, error) {
	o, err := driver.Prepared[Options]("zeromq", cfg.Options)
	if err != nil {
		return nil, err
	}
	if cfg.Destination == "" {
		return nil, errors.New("zeromq: destination is empty")
	}
	host, port, err := parseEndpoint(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("zeromq: %w", err)
	}
	if cfg.Subscriptions > 1 {
		return nil, fmt.Errorf("zeromq: %d subscriptions are not supported (pub-sub gives every consumer every message; push-pull shares them)", cfg.Subscriptions)
	}
	return &zmqDriver{cfg: cfg, opts: o, host: host, port: port, bound: map[int]string{}}, nil
}

type zmqDriver struct {
	cfg  driver.Config
	opts *Options
	host string
	port int

	mu    sync.Mutex
	bound map[int]string // consumer id → endpoint, while the consumer runs
}

// Setup: no broker, nothing to create.
func (d *zmqDriver) Setup(context.Context) error { return nil }

// Teardown: nothing was created.
func (d *zmqDriver) Teardown(context.Context) error { return nil }

// Close: sockets belong to the publishers and consumers, which close them.
func (d *zmqDriver) Close() error { return nil }

// endpoint is consumer id's bind address: the url's port + id.
func (d *zmqDriver) endpoint(id int) (string, error) {
	p := d.port + id
	if id < 0 || p > 65535 {
		return "", fmt.Errorf("zeromq: consumer %d would bind port %d (url port %d + consumer id), beyond 65535; choose a lower port in url", id, p, d.port)
	}
	return "tcp://" + net.JoinHostPort(d.host, strconv.Itoa(p)), nil
}

// NewConsumer binds consumer id's socket on port+id. A port in use is an error naming it.
func (d *zmqDriver) NewConsumer(_ context.Context, id int) (driver.Consumer, error) {
	ep, err := d.endpoint(id)
	if err != nil {
		return nil, err
	}
	// The socket lives until Close, not until the caller's context ends.
	var s zmq4.Socket
	if d.opts.Pattern == patternPubSub {
		s = zmq4.NewSub(context.Background())
		if err := s.SetOption(zmq4.OptionSubscribe, d.cfg.Destination); err != nil {
			s.Close()
			return nil, fmt.Errorf("zeromq: consumer %d: subscribing to %q: %w", id, d.cfg.Destination, err)
		}
	} else {
		s = zmq4.NewPull(context.Background())
	}
	if err := s.Listen(ep); err != nil {
		s.Close()
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("zeromq: consumer %d cannot bind %s: the port is in use (another process, or another run, listens there; consumer i binds the url's port + i, so choose a url port p with p..p+consumers-1 free)", id, ep)
		}
		return nil, fmt.Errorf("zeromq: consumer %d cannot bind %s: %w", id, ep, err)
	}
	return &consumer{d: d, id: id, ep: ep, sock: s, done: make(chan struct{})}, nil
}

// NewPublisher connects producer id to every consumer endpoint of this destination bound so
// far (the runner opens consumers first).
func (d *zmqDriver) NewPublisher(ctx context.Context, id int) (driver.Publisher, error) {
	d.mu.Lock()
	ids := make([]int, 0, len(d.bound))
	for c := range d.bound {
		ids = append(ids, c)
	}
	slices.Sort(ids)
	eps := make([]string, len(ids))
	for i, c := range ids {
		eps[i] = d.bound[c]
	}
	d.mu.Unlock()
	if len(eps) == 0 {
		return nil, fmt.Errorf("zeromq: producer %d has no consumer to connect to: there is no broker, consumers bind the endpoints and must be started first", id)
	}
	socks := make([]zmq4.Socket, 0, len(eps))
	fail := func(err error) (driver.Publisher, error) {
		for _, s := range socks {
			s.Close()
		}
		return nil, err
	}
	opts := []zmq4.Option{zmq4.WithDialerTimeout(dialTimeout), zmq4.WithDialerMaxRetries(dialRetries)}
	for i, ep := range eps {
		var s zmq4.Socket
		if d.opts.Pattern == patternPubSub {
			s = zmq4.NewPub(context.Background(), opts...)
			hwm := max(d.opts.HWM, 0) // zmq4: 0 is no limit
			if err := s.SetOption(zmq4.OptionHWM, hwm); err != nil {
				s.Close()
				return fail(fmt.Errorf("zeromq: producer %d: setting hwm: %w", id, err))
			}
		} else {
			s = zmq4.NewPush(context.Background(), opts...)
		}
		if err := s.Dial(ep); err != nil {
			s.Close()
			return fail(fmt.Errorf("zeromq: producer %d cannot connect to consumer %d at %s: %w", id, ids[i], ep, err))
		}
		socks = append(socks, s)
		if d.opts.Pattern == patternPubSub {
			if err := awaitSubscription(ctx, s); err != nil {
				return fail(fmt.Errorf("zeromq: producer %d, consumer %d at %s: %w", id, ids[i], ep, err))
			}
		}
	}
	if d.opts.Pattern == patternPubSub {
		return &pubPublisher{socks: socks, topic: []byte(d.cfg.Destination)}, nil
	}
	return newPushPublisher(socks, eps, d.opts.SendTimeout), nil
}

// awaitSubscription waits until the PUB's one subscriber has sent its subscription: a PUB
// drops messages that match no subscription it knows, so sending earlier would lose them.
func awaitSubscription(ctx context.Context, s zmq4.Socket) error {
	t, ok := s.(zmq4.Topics)
	if !ok {
		return nil
	}
	deadline := time.Now().Add(subscribeWait)
	for len(t.Topics()) == 0 {
		if time.Now().After(deadline) {
			return fmt.Errorf("the subscriber sent no subscription within %v", subscribeWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}

func (d *zmqDriver) register(id int, ep string) {
	d.mu.Lock()
	d.bound[id] = ep
	d.mu.Unlock()
}

func (d *zmqDriver) unregister(id int) {
	d.mu.Lock()
	delete(d.bound, id)
	d.mu.Unlock()
}
