// Package kafkadrv is mqbench's Kafka driver, on franz-go (pure Go). It speaks the Kafka
// protocol only, so it serves every Kafka-API broker (Apache Kafka, Redpanda, …).
//
// Every publisher and every consumer is its own franz-go client (its own connections), so
// "producers: 25" really is 25 producers. The driver holds one more client, the admin client,
// used to detect an unreachable broker and to manage the topic and the consumer group.
//
// Consumers share the messages: all consumer connections of a run join one consumer group
// ("mqbench-<run id>" unless the scenario names one), so each record reaches one consumer, and
// partitions (topic.partitions) bound how many consumers receive anything.
//
// Fan-out (driver.FanOut, Config.Subscriptions > 1): every subscription is a consumer group,
// the run's group for the first and <group>-s<n> for the others, so each receives every
// record and its consumers share the partitions. Setup fixes each new group's start position
// and Teardown deletes the groups the run created, like the first one's.
//
// Stamp in a header (driver.HeaderStamp, payload.stamp: header): the stamp is the record
// header "mqbench-stamp" (36 bytes, held in the pooled acknowledgement: no allocation), the
// record's value is the body alone; the consumer hands the runner stamp‖value.
//
// Start positions: Setup fixes where a group the run created begins by committing the topic's
// end offsets (start: latest) or start offsets (start: earliest) for every partition, so
// every record produced after Setup is consumed no matter when a consumer joins or how the
// group rebalances. A consumer's Start returns once the group assigned it its partitions and
// their fetch positions are exact offsets (committed, or the end offsets listed at that
// moment for a partition without a commit), or once it learned it was assigned nothing.
//
// Acknowledgements: a publisher's Ack resolves in franz-go's produce promise: with acks all
// when every in-sync replica has the record, with acks 1 when the leader wrote it, with acks 0
// when the request was written to the socket. A record that is not acknowledged within
// request_timeout fails (its Ack returns an error).
package kafkadrv

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

const (
	defaultPort = "9092"
	// dialTimeout bounds one TCP (and TLS) dial.
	dialTimeout = 3 * time.Second
	// pingTimeout bounds the reachability check of Open, NewPublisher and NewConsumer, so an
	// unreachable broker is reported within 5 s.
	pingTimeout = 4500 * time.Millisecond
	// adminTimeout bounds the admin requests of Setup and Teardown when their context has no
	// deadline.
	adminTimeout = 30 * time.Second
	// readyTimeout bounds how long a consumer's Start waits for its group assignment (a
	// broker's group.initial.rebalance.delay.ms is 3 s by default, and a rebalance waits for
	// every member to rejoin).
	readyTimeout = 60 * time.Second
	// closeWait bounds how long Close waits for the client to leave the group and shut down.
	closeWait = 5 * time.Second
	// heartbeatInterval is shorter than franz-go's 3 s so that members rejoin quickly when
	// another consumer of the run joins.
	heartbeatInterval = time.Second
	// sessionTimeout is how long the group waits for a member that stopped heartbeating
	// (crashed, or could not leave because the broker was down) before it hands that
	// member's partitions to the others; Kafka's default is 45 s.
	sessionTimeout = 10 * time.Second
	// maxBufferedBytes bounds what one producer buffers before Send blocks (back-pressure).
	maxBufferedBytes = 64 << 20
)

// codecs maps the compression option to franz-go's codecs.
var codecs = map[string]kgo.CompressionCodec{
	"none":   kgo.NoCompression(),
	"gzip":   kgo.GzipCompression(),
	"snappy": kgo.SnappyCompression(),
	"lz4":    kgo.Lz4Compression(),
	"zstd":   kgo.ZstdCompression(),
}

// Open connects to the broker and returns the run's driver. An unreachable broker is an
// *driver.UnreachableError within 5 s; failed SASL authentication is a plain error.
func Open(ctx context.Context, cfg driver.Config) (driver.Driver, error) {
	o, err := optionsFrom(cfg.Options)
	if err != nil {
		return nil, err
	}
	if err := checkTopicName(cfg.Destination); err != nil {
		return nil, err
	}
	seeds, err := parseBrokers(cfg.URL)
	if err != nil {
		return nil, err
	}
	d := &kafkaDriver{
		cfg:   cfg,
		opts:  o,
		topic: cfg.Destination,
		seeds: seeds,
		addr:  strings.Join(seeds, ","),
		group: o.Consumer.Group,
		subs:  max(1, cfg.Subscriptions),
	}
	d.subGroupCreated = make([]bool, d.subs)
	if d.group == "" {
		run := cfg.RunID
		if run == "" {
			run = fmt.Sprintf("%d", time.Now().UnixNano())
		}
		d.group = "mqbench-" + run
	}
	if err := d.security(); err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(d.clientOpts("mqbench-admin")...)
	if err != nil {
		return nil, fmt.Errorf("kafka: client: %w", err)
	}
	if err := d.ping(ctx, cl); err != nil {
		cl.Close()
		return nil, err
	}
	d.cl = cl
	d.adm = kadm.NewClient(cl)
	return d, nil
}

var _ driver.Identifier = (*kafkaDriver)(nil)

// Server is Kafka's version as franz-go guesses it from the API versions one broker supports
// (Kafka does not send its version): "Kafka v4.3 (guessed from its API versions)".
func (d *kafkaDriver) Server(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout) // a request like Open's ping
	defer cancel()
	resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, d.cl)
	if err != nil || resp.ErrorCode != 0 {
		return ""
	}
	return "Kafka " + kversion.FromApiVersionsResponse(resp).VersionGuess() + " (guessed from its API versions)"
}

type kafkaDriver struct {
	cfg   driver.Config
	opts  *Options
	topic string
	seeds []string
	addr  string // the seed brokers, for messages
	group string // subscription 0's consumer group; the others' are groupOf(n)
	subs  int    // subscriptions (≥ 1), one consumer group each

	tlsCfg *tls.Config
	mech   sasl.Mechanism
	user   string // SASL user, for messages
	secret string // SASL password: never printed; scrubbed from broker error texts

	cl  *kgo.Client // admin client
	adm *kadm.Client

	mu              sync.Mutex
	topicCreated    bool
	groupCreated    bool   // subscription 0's group
	subGroupCreated []bool // by subscription; [0] unused (groupCreated)

	closeOnce sync.Once
}

// security prepares TLS and SASL from the options and the environment.
func (d *kafkaDriver) security() error {
	if t := d.opts.Security.TLS; t != nil {
		// No default server name: franz-go sets each broker's host when dialing it.
		c, err := t.Config("")
		if err != nil {
			return fmt.Errorf("kafka: security.tls: %w", err)
		}
		d.tlsCfg = c
	}
	s := d.opts.Security.SASL
	if s == nil {
		return nil
	}
	// Validate requires both variables' names; an empty user name would pass for none.
	user, _, err := driver.SecretSource{EnvField: "security.sasl.username_env", Env: s.UsernameEnv, NonEmpty: true}.Read("kafka")
	if err != nil {
		return err
	}
	pass, _, err := driver.SecretSource{EnvField: "security.sasl.password_env", Env: s.PasswordEnv}.Read("kafka")
	if err != nil {
		return err
	}
	d.user, d.secret = user, pass
	switch s.Mechanism {
	case "PLAIN":
		d.mech = plain.Auth{User: user, Pass: pass}.AsMechanism()
	case "SCRAM-SHA-256":
		d.mech = scram.Auth{User: user, Pass: pass}.AsSha256Mechanism()
	case "SCRAM-SHA-512":
		d.mech = scram.Auth{User: user, Pass: pass}.AsSha512Mechanism()
	default:
		return fmt.Errorf("kafka: unsupported SASL mechanism %q", s.Mechanism)
	}
	return nil
}

// clientOpts are the options every client of the run shares, plus extra.
func (d *kafkaDriver) clientOpts(name string, extra ...kgo.Opt) []kgo.Opt {
	opts := []kgo.Opt{
		kgo.SeedBrokers(d.seeds...),
		kgo.ClientID(name),
		kgo.DialTimeout(dialTimeout),
		// A topic the run just created shows up in a producer's metadata sooner.
		kgo.MetadataMinAge(time.Second),
	}
	if d.tlsCfg != nil {
		opts = append(opts, kgo.DialTLSConfig(d.tlsCfg))
	}
	if d.mech != nil {
		opts = append(opts, kgo.SASL(d.mech))
	}
	return append(opts, extra...)
}

// ping checks that a broker answers cl (a metadata request), bounded by pingTimeout.
func (d *kafkaDriver) ping(ctx context.Context, cl *kgo.Client) error {
	pctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	err := cl.Ping(pctx)
	if err == nil {
		return nil
	}
	return d.classify(err)
}

// classify turns a connection-level error into an *driver.UnreachableError, an
// authentication failure into a plain error that names the user (never the password), and
// passes anything else on.
func (d *kafkaDriver) classify(err error) error {
	var first *kgo.ErrFirstReadEOF
	switch {
	case isAuthError(err):
		mech := ""
		if s := d.opts.Security.SASL; s != nil {
			mech = " with SASL " + s.Mechanism
		}
		return fmt.Errorf("kafka: authentication failed for user %q at %s%s: %s", d.user, d.addr, mech, d.scrub(err.Error()))
	case errors.As(err, &first):
		return fmt.Errorf("kafka: %s: %s", d.addr, d.scrub(err.Error()))
	case driver.TLSRefused(d.tlsCfg != nil, err):
		return fmt.Errorf("kafka: %s refused the TLS connection: %s", d.addr, d.scrub(err.Error()))
	case driver.IsUnreachable(err):
		if d.secret != "" && strings.Contains(err.Error(), d.secret) {
			err = errors.New(d.scrub(err.Error()))
		}
		return &driver.UnreachableError{Broker: "kafka", Address: d.addr, Err: err}
	}
	return fmt.Errorf("kafka: %s: %s", d.addr, d.scrub(err.Error()))
}

// scrub removes the SASL password from a message, in case a broker ever echoes it.
func (d *kafkaDriver) scrub(s string) string {
	if d.secret != "" {
		s = strings.ReplaceAll(s, d.secret, "***")
	}
	return s
}

func isAuthError(err error) bool {
	return errors.Is(err, kerr.SaslAuthenticationFailed) ||
		errors.Is(err, kerr.UnsupportedSaslMechanism) ||
		errors.Is(err, kerr.IllegalSaslState)
}

// retry runs f until it succeeds, fails with an error Kafka does not call retriable, or ctx
// ends. The first request to a fresh broker's group coordinator answers
// COORDINATOR_NOT_AVAILABLE while __consumer_offsets is being created, for example.
func retry(ctx context.Context, f func() error) error {
	wait := 50 * time.Millisecond
	for {
		err := f()
		if err == nil || !kerr.IsRetriable(err) || errors.Is(err, kerr.UnknownTopicOrPartition) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}

// admCtx bounds an admin call when ctx has no deadline.
func admCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, adminTimeout)
}

// Setup creates the topic when it is absent (topic.create, the default), waits until every
// partition has a leader, and fixes the start position of a consumer group the run creates
// (see the package comment). It records what it created, for Teardown.
func (d *kafkaDriver) Setup(ctx context.Context) error {
	ctx, cancel := admCtx(ctx)
	defer cancel()
	d.mu.Lock()
	defer d.mu.Unlock()

	exists, err := d.topicExists(ctx)
	if err != nil {
		return err
	}
	if !exists {
		if !*d.opts.Topic.Create {
			return fmt.Errorf("kafka: topic %s does not exist at %s and topic.create is false", d.topic, d.addr)
		}
		configs := map[string]*string{}
		for k, v := range d.opts.Topic.Configs {
			configs[k] = kadm.StringPtr(v)
		}
		if _, set := configs["max.message.bytes"]; !set && d.opts.BatchBytes > defaultBatchBytes {
			// A batch larger than the topic allows would be refused: let the topic take what
			// the producers send.
			configs["max.message.bytes"] = kadm.StringPtr(fmt.Sprint(d.opts.BatchBytes))
		}
		resp, err := d.adm.CreateTopic(ctx, int32(d.opts.Topic.Partitions), int16(d.opts.Topic.ReplicationFactor), configs, d.topic)
		switch {
		case err == nil:
			d.topicCreated = true
		case errors.Is(err, kerr.TopicAlreadyExists):
			// Created concurrently by someone else: use it.
		default:
			msg := err.Error()
			if resp.ErrMessage != "" {
				msg += ": " + resp.ErrMessage
			}
			return fmt.Errorf("kafka: create topic %s (partitions %d, replication factor %d): %s",
				d.topic, d.opts.Topic.Partitions, d.opts.Topic.ReplicationFactor, d.scrub(msg))
		}
	}
	if err := d.waitTopic(ctx, true); err != nil {
		return err
	}
	return d.setupGroup(ctx)
}

// topicExists asks the broker's metadata about the topic.
func (d *kafkaDriver) topicExists(ctx context.Context) (bool, error) {
	tds, err := d.adm.ListTopics(ctx, d.topic)
	if err != nil {
		return false, d.classify(err)
	}
	td, ok := tds[d.topic]
	switch {
	case !ok, errors.Is(td.Err, kerr.UnknownTopicOrPartition):
		return false, nil
	case td.Err != nil:
		return false, fmt.Errorf("kafka: topic %s: %w", d.topic, td.Err)
	}
	return true, nil
}

// waitTopic polls metadata until the topic exists with a leader for every partition (present
// = true) or is gone (present = false).
func (d *kafkaDriver) waitTopic(ctx context.Context, present bool) error {
	for {
		tds, err := d.adm.ListTopics(ctx, d.topic)
		if err == nil {
			td, ok := tds[d.topic]
			exists := ok && td.Err == nil
			if present && exists && len(td.Partitions) > 0 {
				ready := true
				for _, p := range td.Partitions {
					if p.Err != nil || p.Leader < 0 {
						ready = false
					}
				}
				if ready {
					return nil
				}
			}
			if !present && !exists {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			state := "ready"
			if !present {
				state = "gone"
			}
			return fmt.Errorf("kafka: topic %s not %s: %w", d.topic, state, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// setupGroup commits the start position (end or start offsets of every partition) for each
// subscription's group that does not exist yet, and records that the run created it. An
// existing group keeps its committed offsets.
func (d *kafkaDriver) setupGroup(ctx context.Context) error {
	var offsets kadm.Offsets
	for s := 0; s < d.subs; s++ {
		group := d.groupOf(s)
		exists, err := d.groupExists(ctx, group)
		if err != nil {
			return err
		}
		if exists {
			continue
		}
		if offsets == nil {
			if offsets, err = d.startOffsets(ctx); err != nil {
				return err
			}
		}
		created, err := d.commitStart(ctx, group, offsets)
		if err != nil {
			return err
		}
		d.setGroupCreated(s, created)
	}
	return nil
}

// startOffsets lists the offsets a fresh group starts from: the end (start: latest) or start
// (start: earliest) offsets of every partition.
func (d *kafkaDriver) startOffsets(ctx context.Context) (kadm.Offsets, error) {
	var listed kadm.ListedOffsets
	err := retry(ctx, func() error {
		var err error
		if d.opts.Consumer.Start == "earliest" {
			listed, err = d.adm.ListStartOffsets(ctx, d.topic)
		} else {
			listed, err = d.adm.ListEndOffsets(ctx, d.topic)
		}
		if err == nil {
			err = listed.Error()
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("kafka: list %s offsets of %s: %s", d.opts.Consumer.Start, d.topic, d.scrub(err.Error()))
	}
	offsets := listed.Offsets()
	offsets.Each(func(o kadm.Offset) {
		// A fresh group has no leader epoch to validate against.
		o.LeaderEpoch = -1
		offsets.Add(o)
	})
	return offsets, nil
}

// groupOf is subscription sub's consumer group: the run's group, then <group>-s<sub>.
func (d *kafkaDriver) groupOf(sub int) string { return driver.SubscriptionName(d.group, "-", sub) }

// groupCreatedFor says whether the run created subscription sub's group (under d.mu).
func (d *kafkaDriver) groupCreatedFor(sub int) bool {
	if sub == 0 {
		return d.groupCreated
	}
	return d.subGroupCreated[sub]
}

func (d *kafkaDriver) setGroupCreated(sub int, v bool) {
	if sub == 0 {
		d.groupCreated = v
	} else {
		d.subGroupCreated[sub] = v
	}
}

// groupExists reports whether the consumer group is known to the broker.
func (d *kafkaDriver) groupExists(ctx context.Context, group string) (bool, error) {
	var groups kadm.DescribedGroups
	err := retry(ctx, func() error {
		var err error
		groups, err = d.adm.DescribeGroups(ctx, group)
		if err == nil {
			if g, ok := groups[group]; ok && g.Err != nil {
				err = g.Err
			}
		}
		return err
	})
	if err != nil {
		if errors.Is(err, kerr.GroupIDNotFound) {
			return false, nil
		}
		return false, fmt.Errorf("kafka: describe group %s: %s", group, d.scrub(err.Error()))
	}
	g, ok := groups[group]
	if !ok || errors.Is(g.Err, kerr.GroupIDNotFound) {
		return false, nil
	}
	if g.Err != nil {
		return false, fmt.Errorf("kafka: describe group %s: %w", group, g.Err)
	}
	return g.State != "" && g.State != "Dead", nil
}

// Teardown deletes the consumer groups the run created (after their consumers left) and the
// topic the run created, unless topic.keep.
func (d *kafkaDriver) Teardown(ctx context.Context) error {
	ctx, cancel := admCtx(ctx)
	defer cancel()
	d.mu.Lock()
	defer d.mu.Unlock()
	var errs []error
	for s := 0; s < d.subs; s++ {
		if !d.groupCreatedFor(s) {
			continue
		}
		if err := d.deleteGroup(ctx, d.groupOf(s)); err != nil {
			errs = append(errs, err)
		} else {
			d.setGroupCreated(s, false)
		}
	}
	if d.topicCreated && !d.opts.Topic.Keep {
		_, err := d.adm.DeleteTopic(ctx, d.topic)
		if err != nil && !errors.Is(err, kerr.UnknownTopicOrPartition) {
			errs = append(errs, fmt.Errorf("kafka: delete topic %s: %s", d.topic, d.scrub(err.Error())))
		} else if err := d.waitTopic(ctx, false); err != nil {
			errs = append(errs, err)
		} else {
			d.topicCreated = false
		}
	}
	return errors.Join(errs...)
}

// deleteGroup deletes one of the run's groups; members that are still leaving make the broker
// answer NON_EMPTY_GROUP for a moment, so that is retried briefly.
func (d *kafkaDriver) deleteGroup(ctx context.Context, group string) error {
	deadline := time.Now().Add(closeWait)
	for {
		err := retry(ctx, func() error {
			_, err := d.adm.DeleteGroup(ctx, group)
			return err
		})
		switch {
		case err == nil, errors.Is(err, kerr.GroupIDNotFound):
			return nil
		case errors.Is(err, kerr.NonEmptyGroup) && time.Now().Before(deadline):
			select {
			case <-ctx.Done():
				return fmt.Errorf("kafka: delete group %s: %w", group, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		default:
			return fmt.Errorf("kafka: delete consumer group %s: %s", group, d.scrub(err.Error()))
		}
	}
}

// DestinationExists reports whether the topic exists (the conformance suite checks Setup and
// Teardown with it).
func (d *kafkaDriver) DestinationExists(ctx context.Context) (exists, applicable bool, err error) {
	ctx, cancel := admCtx(ctx)
	defer cancel()
	exists, err = d.topicExists(ctx)
	return exists, true, err
}

// GroupExists reports whether the run's consumer group exists (for tests).
func (d *kafkaDriver) GroupExists(ctx context.Context) (bool, error) {
	ctx, cancel := admCtx(ctx)
	defer cancel()
	return d.groupExists(ctx, d.group)
}

// SubscriptionExists reports whether subscription sub's consumer group exists (the fan-out
// conformance test checks Setup and Teardown with it).
func (d *kafkaDriver) SubscriptionExists(ctx context.Context, sub int) (exists, applicable bool, err error) {
	ctx, cancel := admCtx(ctx)
	defer cancel()
	exists, err = d.groupExists(ctx, d.groupOf(sub))
	return exists, true, err
}

// Close closes the admin client. Idempotent.
func (d *kafkaDriver) Close() error {
	d.closeOnce.Do(func() { closeClient(d.cl) })
	return nil
}

// closeClient closes cl, giving up waiting after closeWait (against a dead broker franz-go
// may keep trying to leave a group; its goroutines end when that attempt does).
func closeClient(cl *kgo.Client) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		cl.Close()
	}()
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// NewPublisher opens producer connection id: its own client, checked with a metadata request.
func (d *kafkaDriver) NewPublisher(ctx context.Context, id int) (driver.Publisher, error) {
	o := d.opts
	popts := []kgo.Opt{
		kgo.ProducerLinger(o.Linger),
		kgo.ProducerBatchMaxBytes(int32(o.BatchBytes)),
		kgo.ProducerBatchCompression(codecs[o.Compression]),
		kgo.ProduceRequestTimeout(o.RequestTimeout),
		kgo.RecordDeliveryTimeout(o.RequestTimeout),
		kgo.MaxBufferedBytes(maxBufferedBytes),
	}
	switch o.Acks {
	case "all":
		popts = append(popts, kgo.RequiredAcks(kgo.AllISRAcks()))
	case "1":
		popts = append(popts, kgo.RequiredAcks(kgo.LeaderAck()))
	case "0":
		popts = append(popts, kgo.RequiredAcks(kgo.NoAck()))
	}
	if *o.Idempotent {
		// Lets request_timeout fail a record whose request is in flight to a broker that went
		// away. The client never re-produces a failed record, so this cannot duplicate.
		popts = append(popts, kgo.AllowIdempotentProduceCancellation())
	} else {
		popts = append(popts, kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(o.MaxInFlight))
	}
	cl, err := kgo.NewClient(d.clientOpts(fmt.Sprintf("mqbench-pub-%d", id), popts...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka: producer client: %w", err)
	}
	if err := d.ping(ctx, cl); err != nil {
		cl.Close()
		return nil, err
	}
	return newPublisher(cl, d.topic), nil
}

// NewConsumer prepares consumer connection id. Its client is created, and joins the group,
// in Start; here the broker is only checked to still answer.
func (d *kafkaDriver) NewConsumer(ctx context.Context, id int) (driver.Consumer, error) {
	return d.NewSubscriber(ctx, 0, id)
}

// NewSubscriber prepares consumer connection id of subscription sub: like NewConsumer, a
// member of the subscription's consumer group.
func (d *kafkaDriver) NewSubscriber(ctx context.Context, sub, id int) (driver.Consumer, error) {
	if sub < 0 || sub >= d.subs {
		return nil, fmt.Errorf("kafka: subscription %d out of range (the run has %d)", sub, d.subs)
	}
	if err := d.ping(ctx, d.cl); err != nil {
		return nil, err
	}
	return &consumer{d: d, id: id, group: d.groupOf(sub), stop: make(chan struct{}), done: make(chan struct{}), ready: make(chan struct{})}, nil
}

// optionsFrom accepts the decoded options block (or nil for all defaults).
func optionsFrom(v any) (*Options, error) { return driver.Prepared[Options]("kafka", v) }

// parseBrokers reads "kafka://h1:9092,h2:9092", "h1:9092,h2" or a mix: a comma-separated list
// of host[:port], each with or without the kafka:// scheme. Credentials in the URL are refused
// (SASL credentials come from environment variables).
func parseBrokers(raw string) ([]string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, errors.New("kafka: url is empty; give kafka://host:port[,host:port…]")
	}
	var seeds []string
	for _, part := range strings.Split(raw, ",") {
		p := strings.TrimSpace(part)
		if p == "" {
			continue
		}
		if i := strings.Index(p, "://"); i >= 0 {
			if !strings.EqualFold(p[:i], "kafka") {
				return nil, fmt.Errorf("kafka: url scheme %q is not supported; use kafka://host:port (TLS and SASL are set in the broker.kafka.security block)", p[:i])
			}
			p = p[i+3:]
		}
		p = strings.TrimRight(p, "/")
		if strings.Contains(p, "@") {
			return nil, errors.New("kafka: credentials in the url are not supported; use broker.kafka.security.sasl with username_env and password_env")
		}
		if strings.ContainsAny(p, "/?#") {
			return nil, fmt.Errorf("kafka: broker address %q has a path or query; give host:port", p)
		}
		host, port, err := net.SplitHostPort(p)
		if err != nil {
			host, port = strings.Trim(p, "[]"), defaultPort
		}
		if host == "" {
			return nil, fmt.Errorf("kafka: broker address %q has no host", part)
		}
		seeds = append(seeds, net.JoinHostPort(host, port))
	}
	if len(seeds) == 0 {
		return nil, errors.New("kafka: url names no broker; give kafka://host:port[,host:port…]")
	}
	return seeds, nil
}

// checkTopicName applies Kafka's topic naming rules, so a bad destination is reported before
// anything is created.
func checkTopicName(t string) error {
	if t == "" {
		return errors.New("kafka: destination (topic) is empty")
	}
	if t == "." || t == ".." {
		return fmt.Errorf("kafka: topic name %q is not allowed", t)
	}
	if len(t) > 249 {
		return fmt.Errorf("kafka: topic name is %d characters long, at most 249 are allowed", len(t))
	}
	for _, c := range t {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("kafka: topic name %q has character %q; only letters, digits, '.', '_' and '-' are allowed", t, c)
		}
	}
	return nil
}

// CloneRefs copies the map and pointer fields, so the driver's options share nothing with the
// scenario's (see driver.Prepared).
func (o *Options) CloneRefs() {
	if o.Topic.Configs != nil {
		c := make(map[string]string, len(o.Topic.Configs))
		for k, v := range o.Topic.Configs {
			c[k] = v
		}
		o.Topic.Configs = c
	}
	if o.Security.SASL != nil {
		s := *o.Security.SASL
		o.Security.SASL = &s
	}
}
