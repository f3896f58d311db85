// Package mqttdrv is mqbench's MQTT driver: publishers and consumers are MQTT client
// connections to one broker, the destination is a topic.
//
// Two client libraries sit behind one small interface (conn.go), picked by option protocol:
// paho.golang for MQTT 5 (the default), the maintained MQTT 5 client with user properties,
// session and message expiry, receive maximum and shared subscriptions, which speaks MQTT 5
// only; and paho.mqtt.golang for MQTT 3.1.1, the protocol of RabbitMQ 3.x's MQTT plugin and
// of the NATS server's MQTT listener, which refuse MQTT 5. An MQTT 5 CONNECT such a broker
// refuses is reported as one line asking for protocol "3.1.1".
//
// Every publisher and consumer is its own connection with its own client id (prefix, run id,
// role, number). The consumers of one subscription share its messages through a shared
// subscription ($share/<group>/<topic>); each of workload.subscriptions is its own group, so
// each receives every message (fan-out). MQTT creates nothing ahead of a subscription: a
// message published while no subscription matches is dropped, so consumers start first.
// With clean_start false each consumer's session, and what the broker queued for it, stays
// on the broker while the consumer is away; Teardown removes those sessions.
//
// Publish latency waits for the PUBACK (QoS 1) or PUBCOMP (QoS 2); QoS 0 has none. Both
// publishers and consumers open a new connection themselves when theirs breaks.
package mqttdrv

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Open checks the broker takes a connection (CONNECT with the run's credentials, then
// DISCONNECT) and returns the run's driver.
func Open(ctx context.Context, cfg driver.Config) (driver.Driver, error) {
	o, err := driver.Prepared[Options]("mqtt", cfg.Options)
	if err != nil {
		return nil, err
	}
	if err := checkTopic(cfg.Destination, o); err != nil {
		return nil, fmt.Errorf("mqtt: %w", err)
	}
	if strings.EqualFold(strings.TrimSpace(cfg.URL), "embedded") {
		return nil, errors.New(`mqtt: url "embedded" is only supported by the nats broker; give an mqtt:// URL`)
	}
	ep, err := parseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("mqtt: %w", err)
	}
	d := &mqttDriver{cfg: cfg, opts: o, ep: ep, dial: dialV5, run: cfg.RunID}
	if o.Protocol == v311 {
		d.dial = dialV3
	}
	if d.run == "" {
		d.run = strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	if d.tls, err = tlsConfig(o, ep); err != nil {
		return nil, err
	}
	if err := d.credentials(); err != nil {
		return nil, err
	}
	c, err := d.dial(ctx, d.params(roleID("probe", 0), true, nil))
	if err != nil {
		return nil, err
	}
	c.disconnect()
	return d, nil
}

// tlsConfig: the tls block needs mqtts://; mqtts:// without it verifies with the system's
// roots.
func tlsConfig(o *Options, ep endpoint) (*tls.Config, error) {
	switch {
	case o.TLS != nil && !ep.tls:
		return nil, errors.New("mqtt: the tls block needs an mqtts:// url")
	case o.TLS != nil:
		c, err := o.TLS.Config(ep.host)
		if err != nil {
			return nil, fmt.Errorf("mqtt: tls: %w", err)
		}
		return c, nil
	case ep.tls:
		return &tls.Config{ServerName: ep.host, MinVersion: tls.VersionTLS12}, nil
	}
	return nil, nil
}

type mqttDriver struct {
	cfg     driver.Config
	opts    *Options
	ep      endpoint
	tls     *tls.Config
	dial    dialer
	run     string // the run id in client ids and the default group
	user    string
	pass    string
	hasUser bool
	hasPass bool

	mu       sync.Mutex
	sessions []string     // client ids of persistent consumer sessions, for Teardown
	solo     map[int]bool // subscriptions with an unshared consumer (share false)
}

var _ driver.FanOut = (*mqttDriver)(nil)

// credentials: username (or the url's user), the password from password_env or
// password_file (or the url's).
func (d *mqttDriver) credentials() error {
	d.user, d.hasUser = d.ep.user, d.ep.user != ""
	if d.opts.Username != "" {
		d.user, d.hasUser = d.opts.Username, true
	}
	d.pass, d.hasPass = d.ep.pass, d.ep.hasPass
	secret, ok, err := d.opts.password().Read("mqtt")
	if err != nil {
		return err
	}
	if ok {
		d.pass, d.hasPass = secret, true
	}
	if d.hasPass && !d.hasUser && d.opts.Protocol == v311 {
		return errors.New("mqtt: a password needs a user name in MQTT 3.1.1 (set mqtt.username)")
	}
	return nil
}

// params is one connection's: role names it in its client id.
func (d *mqttDriver) params(role string, clean bool, onMessage func([]byte, string, time.Time)) params {
	o := d.opts
	p := params{ep: d.ep, tls: d.tls, clientID: clientID(o.ClientIDPrefix, d.run, role),
		user: d.user, pass: d.pass, hasUser: d.hasUser, hasPass: d.hasPass, clean: clean,
		keepAlive: uint16(o.KeepAlive / time.Second), recvMax: uint16(o.ReceiveMaximum),
		timeout: o.ConnectTimeout, qos: byte(qos(o)), retain: o.Retain,
		msgExpiry: uint32(o.MessageExpiry / time.Second), inflight: o.MaxInflight, onMessage: onMessage}
	if !clean {
		p.expiry = uint32(o.SessionExpiry / time.Second)
	}
	return p
}

// Setup creates nothing (an MQTT topic exists as soon as something is published to it); with
// share it checks that the broker serves shared subscriptions (share.go).
func (d *mqttDriver) Setup(ctx context.Context) error {
	if !shared(d.opts) {
		return nil
	}
	return d.checkShared(ctx)
}

// Teardown removes the consumers' persistent sessions (a clean CONNECT under each client id)
// and, after a run that retained messages, the topic's retained message (an empty retained
// PUBLISH), so neither outlives the run.
func (d *mqttDriver) Teardown(ctx context.Context) error {
	d.mu.Lock()
	ids := d.sessions
	d.sessions = nil
	d.mu.Unlock()
	var errs []error
	for _, id := range ids {
		p := d.params("", true, nil)
		p.clientID, p.expiry = id, 0
		c, err := d.dial(ctx, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c.disconnect()
	}
	if d.opts.Retain {
		if err := d.clearRetained(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (d *mqttDriver) clearRetained(ctx context.Context) error {
	p := d.params(roleID("clear", 0), true, nil)
	c, err := d.dial(ctx, p)
	if err != nil {
		return err
	}
	defer c.disconnect()
	a, err := c.publish(ctx, d.cfg.Destination, driver.Message{Value: []byte{}})
	if err == nil && a != nil {
		err = a.Wait(ctx)
	}
	return err
}

// Close holds nothing: every connection belongs to a publisher or a consumer.
func (d *mqttDriver) Close() error { return nil }

// NewPublisher opens publisher connection id now, so a broker gone since Open is reported
// here.
func (d *mqttDriver) NewPublisher(ctx context.Context, id int) (driver.Publisher, error) {
	p := d.params(roleID("p", id), true, nil)
	c, err := d.dial(ctx, p)
	if err != nil {
		return nil, err
	}
	pub := &publisher{d: d, p: p, topic: d.cfg.Destination}
	pub.c.Store(&c)
	return pub, nil
}

// NewConsumer opens consumer id of the run's one subscription.
func (d *mqttDriver) NewConsumer(ctx context.Context, id int) (driver.Consumer, error) {
	return d.NewSubscriber(ctx, 0, id)
}

// NewSubscriber opens consumer id of subscription sub; it connects and subscribes at Start.
func (d *mqttDriver) NewSubscriber(_ context.Context, sub, id int) (driver.Consumer, error) {
	role := roleID("c", id)
	if sub > 0 {
		role = roleID("s", sub) + role
	}
	filter := d.cfg.Destination
	if shared(d.opts) {
		filter = "$share/" + d.group(sub) + "/" + d.cfg.Destination
	} else {
		d.mu.Lock()
		taken := d.solo[sub]
		if d.solo == nil {
			d.solo = map[int]bool{}
		}
		d.solo[sub] = true
		d.mu.Unlock()
		if taken {
			return nil, fmt.Errorf("mqtt: with share: false every consumer receives every message, so a subscription takes one consumer (consumer %d is a second one); use workload.subscriptions for fan-out", id)
		}
	}
	clean := cleanStart(d.opts)
	p := d.params(role, clean, nil)
	if !clean {
		d.mu.Lock()
		d.sessions = append(d.sessions, p.clientID)
		d.mu.Unlock()
	}
	return &consumer{d: d, p: p, filter: filter, qos: byte(subQoS(d.opts)), stop: make(chan struct{})}, nil
}

// group is subscription sub's shared-subscription group: shared_group, or mqbench-<run id>
// (characters that cannot be in one topic level replaced), -s<n> for subscription n > 0.
func (d *mqttDriver) group(sub int) string {
	base := "mqbench-" + strings.NewReplacer("/", "_", "+", "_", "#", "_").Replace(d.run)
	if d.opts.SharedGroup != nil {
		base = *d.opts.SharedGroup
	}
	return driver.SubscriptionName(base, "-", sub)
}
