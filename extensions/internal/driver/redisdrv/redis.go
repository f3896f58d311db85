// Package redisdrv is mqbench's Redis driver: pub/sub (PUBLISH / SUBSCRIBE) and Streams (XADD,
// consumer group XREADGROUP + XACK).
//
// Every publisher and consumer is its own go-redis client with its own connection, so
// "producers: 25" is 25 connections. The driver holds one more client (the admin client) for
// the reachability check, the consumer group and teardown.
//
// Delivery semantics differ by mode, and the common code must know it:
//
//   - pubsub: Redis delivers every message to every subscriber. With consumers > 1 each
//     consumer receives all messages, so a ledger that expects each message once will count
//     consumers-1 duplicates per message. Messages published while no subscriber is connected
//     (or while a subscriber reconnects) are lost: pub/sub is at-most-once.
//   - streams: all consumers of a run read through one consumer group, so they share the
//     messages; each message reaches one consumer. Each consumer connection is its own
//     consumer in the group (consumer-<id>-<random suffix>, removed at the end when nothing
//     is pending for it). Entries Redis handed to a consumer whose reply was lost (a broken
//     connection, a timeout) are read again from its pending entries, delivered once and
//     acknowledged, before it reads new ones.
//
// Fan-out (driver.FanOut, Config.Subscriptions > 1), streams only: every subscription is a
// consumer group on the stream, the run's group for the first and <group>-s<n> for the others,
// so each receives every entry and its consumers share it. Setup creates and Teardown
// destroys every group like the first one. Pub/sub cannot: every subscriber receives every
// message, so a subscription's consumers could not share them.
//
// Credentials: the password comes from the URL (redis://user:pass@host) or, when the scenario
// sets password_env, from that environment variable. Neither appears in errors or names.
package redisdrv

import (
	"context"
	"errors"
	"fmt"
	"github.com/mqbench/xk6-mqbench/internal/redact"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

const (
	// dialTimeout bounds connecting to the broker, so an unreachable one is reported quickly.
	dialTimeout = 2 * time.Second
	// ioTimeout bounds one command's write and read (for blocking reads: on top of BLOCK).
	ioTimeout = 3 * time.Second
	// closeWait bounds how long Close waits for a consumer goroutine to return.
	closeWait = 5 * time.Second
	// field is the stream entry field that carries the payload.
	field = "d"
)

// Open connects to the broker and returns the run's driver.
func Open(ctx context.Context, cfg driver.Config) (driver.Driver, error) {
	o, err := optionsFrom(cfg.Options)
	if err != nil {
		return nil, err
	}
	if cfg.Destination == "" {
		return nil, errors.New("redis: destination (channel or stream key) is empty")
	}
	raw := strings.TrimSpace(cfg.URL)
	if strings.EqualFold(raw, "embedded") {
		return nil, errors.New(`redis: url "embedded" is only supported by the nats broker; give a redis:// URL`)
	}
	if !strings.Contains(raw, "://") {
		raw = "redis://" + raw
	}
	base, err := redis.ParseURL(raw)
	if err != nil {
		// The parser's message may quote the URL; do not repeat it (it may carry a password).
		return nil, fmt.Errorf("redis: invalid url %s: %v", redact.URL(raw), redact.Text(err.Error(), raw))
	}
	pw, ok, err := driver.SecretSource{EnvField: "password_env", Env: o.PasswordEnv}.Read("redis")
	if err != nil {
		return nil, err
	}
	if ok {
		base.Password = pw
	}
	if o.TLS != nil {
		host, _, _ := net.SplitHostPort(base.Addr)
		if base.TLSConfig, err = o.TLS.Config(host); err != nil {
			return nil, fmt.Errorf("redis: tls: %w", err)
		}
	}
	base.DialTimeout = dialTimeout
	base.ReadTimeout = ioTimeout
	base.WriteTimeout = ioTimeout
	base.ContextTimeoutEnabled = true
	// No CLIENT SETINFO: older servers answer it with an error that go-redis logs.
	base.DisableIdentity = true

	scheme := "redis"
	if base.TLSConfig != nil {
		scheme = "rediss"
	}
	if base.Network == "unix" {
		scheme = "unix"
	}
	d := &redisDriver{
		cfg:   cfg,
		opts:  o,
		base:  base,
		addr:  scheme + "://" + base.Addr,
		group: o.Group,
	}
	if d.group == "" {
		run := cfg.RunID
		if run == "" {
			run = fmt.Sprintf("%d", time.Now().UnixNano())
		}
		d.group = "mqbench-" + run
	}
	d.subs = max(1, cfg.Subscriptions)
	if d.subs > 1 && !fanOut(o) {
		return nil, fmt.Errorf("redis: %d subscriptions need mode streams (pub/sub gives every subscriber every message, so a subscription's consumers cannot share them)", d.subs)
	}
	d.subGroupCreated = make([]bool, d.subs)

	// One dial attempt (go-redis' default is 5) so that a host that drops packets is reported
	// within the dial timeout.
	d.admin = d.newClient("mqbench-admin", 2, func(o *redis.Options) { o.DialerRetries = 1 })
	pctx, cancel := context.WithTimeout(ctx, dialTimeout+time.Second)
	defer cancel()
	if err := d.admin.Ping(pctx).Err(); err != nil {
		d.admin.Close()
		if driver.IsUnreachable(err) && !driver.TLSRefused(d.base.TLSConfig != nil, err) {
			return nil, &driver.UnreachableError{Broker: "redis", Address: d.addr, Err: err}
		}
		return nil, fmt.Errorf("redis: %s: %w", d.addr, err)
	}
	return d, nil
}

var _ driver.Identifier = (*redisDriver)(nil)

// Server is the version INFO server reports ("Redis 7.0.15"; Valkey, which also reports a
// redis_version for compatibility, as "Valkey 8.0.1").
func (d *redisDriver) Server(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout+time.Second) // as Open's ping
	defer cancel()
	info, err := d.admin.Info(ctx, "server").Result()
	if err != nil {
		return ""
	}
	f := infoFields(info)
	switch {
	case f["valkey_version"] != "":
		return "Valkey " + f["valkey_version"]
	case f["redis_version"] != "":
		return "Redis " + f["redis_version"]
	}
	return ""
}

type redisDriver struct {
	cfg   driver.Config
	opts  *Options
	base  *redis.Options // parsed URL + timeouts; copied for every client
	addr  string         // without credentials
	group string         // streams: subscription 0's consumer group; the others' are groupOf(n)
	subs  int            // subscriptions (≥ 1), one consumer group each

	admin *redis.Client

	mu            sync.Mutex
	streamCreated bool
	groupCreated  bool
	// subGroupCreated is by subscription; [0] unused (groupCreated).
	subGroupCreated []bool

	cpu driver.CPUMeter // BrokerStats' previous CPU sample (one sampling goroutine)

	closeOnce sync.Once
}

// newClient returns a client with its own pool of at most poolSize connections. tweak may adjust
// the options further.
func (d *redisDriver) newClient(name string, poolSize int, tweak func(*redis.Options)) *redis.Client {
	o := new(redis.Options)
	*o = *d.base
	o.ClientName = name
	o.PoolSize = poolSize
	o.PipelinePoolSize = 1
	o.MinIdleConns = 0
	if tweak != nil {
		tweak(o)
	}
	return redis.NewClient(o)
}

// Setup creates the consumer group (streams): XGROUP CREATE key group $ MKSTREAM, and every
// further subscription's group the same way. It records whether this run created the stream
// and each group, for Teardown.
func (d *redisDriver) Setup(ctx context.Context) error {
	if d.opts.Mode != "streams" {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	key := d.cfg.Destination
	n, err := d.admin.Exists(ctx, key).Result()
	if err != nil {
		return fmt.Errorf("redis: EXISTS %s: %w", key, err)
	}
	for s := 0; s < d.subs; s++ {
		group := d.groupOf(s)
		err = d.admin.XGroupCreateMkStream(ctx, key, group, "$").Err()
		switch {
		case err == nil:
			if s == 0 {
				d.groupCreated = true
				d.streamCreated = n == 0
			} else {
				d.subGroupCreated[s] = true
			}
		case strings.HasPrefix(err.Error(), "BUSYGROUP"):
			// The group exists (a user-named group kept from an earlier run): use it as is.
		default:
			return fmt.Errorf("redis: XGROUP CREATE %s %s: %w", key, group, err)
		}
	}
	return nil
}

// groupOf is subscription sub's consumer group: the run's group, then <group>-s<sub>.
func (d *redisDriver) groupOf(sub int) string { return driver.SubscriptionName(d.group, "-", sub) }

// fanOut reports whether the options allow several subscriptions (Spec.FanOut): streams only.
func fanOut(o driver.Options) bool { return o.(*Options).Mode == "streams" }

// Teardown deletes the stream if this run created it (unless keep); otherwise it destroys the
// consumer groups this run created.
func (d *redisDriver) Teardown(ctx context.Context) error {
	if d.opts.Mode != "streams" {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	key := d.cfg.Destination
	if d.streamCreated && !d.opts.Keep {
		if err := d.admin.Del(ctx, key).Err(); err != nil {
			return fmt.Errorf("redis: DEL %s: %w", key, err)
		}
		d.streamCreated, d.groupCreated = false, false
		clear(d.subGroupCreated)
		return nil
	}
	var errs []error
	for s := 0; s < d.subs; s++ {
		created := &d.groupCreated
		if s > 0 {
			created = &d.subGroupCreated[s]
		}
		if !*created {
			continue
		}
		group := d.groupOf(s)
		if err := d.admin.XGroupDestroy(ctx, key, group).Err(); err != nil {
			errs = append(errs, fmt.Errorf("redis: XGROUP DESTROY %s %s: %w", key, group, err))
			continue
		}
		*created = false
	}
	return errors.Join(errs...)
}

// SubscriptionExists reports whether subscription sub's consumer group exists (streams mode;
// the fan-out conformance test checks Setup and Teardown with it).
func (d *redisDriver) SubscriptionExists(ctx context.Context, sub int) (exists, applicable bool, err error) {
	if d.opts.Mode != "streams" {
		return false, false, nil
	}
	groups, err := d.admin.XInfoGroups(ctx, d.cfg.Destination).Result()
	switch {
	case err != nil && strings.Contains(err.Error(), "no such key"):
		return false, true, nil
	case err != nil:
		return false, true, fmt.Errorf("redis: XINFO GROUPS %s: %w", d.cfg.Destination, err)
	}
	name := d.groupOf(sub)
	for _, g := range groups {
		if g.Name == name {
			return true, true, nil
		}
	}
	return false, true, nil
}

// DestinationExists reports whether the stream key exists (streams mode); applicable is false
// for pub/sub, whose channels are not objects.
func (d *redisDriver) DestinationExists(ctx context.Context) (exists, applicable bool, err error) {
	if d.opts.Mode != "streams" {
		return false, false, nil
	}
	n, err := d.admin.Exists(ctx, d.cfg.Destination).Result()
	return n > 0, true, err
}

// Close closes the admin client. Idempotent.
func (d *redisDriver) Close() error {
	d.closeOnce.Do(func() { d.admin.Close() })
	return nil
}

// NewPublisher opens publisher connection id: a client with a pool of one connection, dialled
// now so that a broker gone since Open is reported here.
func (d *redisDriver) NewPublisher(ctx context.Context, id int) (driver.Publisher, error) {
	c := d.newClient(fmt.Sprintf("mqbench-pub-%d", id), 1, func(o *redis.Options) {
		// No automatic retries: a PUBLISH/XADD whose reply was lost may have been applied, and a
		// retry would then duplicate it. An error is reported as an error.
		o.MaxRetries = -1
	})
	if err := d.ping(ctx, c, false); err != nil {
		return nil, err
	}
	if d.opts.Mode == "streams" {
		return &streamPublisher{c: c, args: redis.XAddArgs{
			Stream: d.cfg.Destination,
			MaxLen: d.opts.MaxLen,
			Approx: d.opts.MaxLen > 0,
		}}, nil
	}
	return &pubsubPublisher{c: c, channel: d.cfg.Destination}, nil
}

// NewConsumer opens consumer connection id.
func (d *redisDriver) NewConsumer(ctx context.Context, id int) (driver.Consumer, error) {
	return d.NewSubscriber(ctx, 0, id)
}

// NewSubscriber opens consumer connection id of subscription sub: like NewConsumer, reading
// through the subscription's consumer group (streams; pub/sub has only subscription 0).
func (d *redisDriver) NewSubscriber(ctx context.Context, sub, id int) (driver.Consumer, error) {
	if sub < 0 || sub >= d.subs {
		return nil, fmt.Errorf("redis: subscription %d out of range (the run has %d)", sub, d.subs)
	}
	name := fmt.Sprintf("mqbench-sub-%d", id)
	if d.opts.Mode == "streams" {
		block := d.opts.Block
		c := d.newClient(name, 1, func(o *redis.Options) {
			// The XREADGROUP runs in a pipeline (with the previous batch's XACK), which uses
			// ReadTimeout rather than BLOCK + margin.
			o.ReadTimeout = block + ioTimeout
			// No silent retry on a new connection: a read whose reply was lost leaves entries
			// in this consumer's PEL, and only the consumer's loop, seeing the error, reads them.
			o.MaxRetries = -1
		})
		// Ping through a pipeline too, so the consumer's only connection is the one its
		// XREADGROUP pipelines use.
		if err := d.ping(ctx, c, true); err != nil {
			return nil, err
		}
		return &streamConsumer{
			c:        c,
			key:      d.cfg.Destination,
			group:    d.groupOf(sub),
			consumer: consumerName(id),
			count:    int64(d.opts.ReadCount),
			block:    block,
			loop:     newLoop(),
		}, nil
	}
	c := d.newClient(name, 1, nil)
	return &pubsubConsumer{c: c, channel: d.cfg.Destination, loop: newLoop()}, nil
}

func (d *redisDriver) ping(ctx context.Context, c *redis.Client, pipelined bool) error {
	pctx, cancel := context.WithTimeout(ctx, dialTimeout+time.Second)
	defer cancel()
	var err error
	if pipelined {
		_, err = c.Pipelined(pctx, func(p redis.Pipeliner) error { return p.Ping(pctx).Err() })
	} else {
		err = c.Ping(pctx).Err()
	}
	if err != nil {
		c.Close()
		if driver.IsUnreachable(err) && !driver.TLSRefused(d.base.TLSConfig != nil, err) {
			return &driver.UnreachableError{Broker: "redis", Address: d.addr, Err: err}
		}
		return fmt.Errorf("redis: %s: %w", d.addr, err)
	}
	return nil
}

// optionsFrom accepts the decoded options block (or nil for all defaults).
func optionsFrom(v any) (*Options, error) { return driver.Prepared[Options]("redis", v) }
