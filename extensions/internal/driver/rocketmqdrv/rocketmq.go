// Package rocketmqdrv is mqbench's Apache RocketMQ driver: rocketmq-client-go v2.1.2's
// producer (send async, sync or oneway; publish latency = the broker's send result; async
// batch sends with publish_batch) and push
// consumer (one consumer group per run, clustering: each message reaches one of its
// consumers), found through the name servers in the url.
//
// Every publisher and consumer is its own client instance with its own connections. Setup
// creates the topic (queues read/write queues on every master broker) through the broker's
// admin protocol, and waits until the name server routes it, so the first sends do not meet
// "route info not found". Consumers start from the first offset of a queue the group has no
// offset for; on a topic that existed before the run, Setup first commits the offsets of
// groups new to the brokers at the end of every queue, so the run reads only its own
// messages. Teardown removes those new groups (run-named ones always are; a named group when
// its retry topic did not exist at Setup) with their retry topics, and the topic when the
// run created it (unless keep).
package rocketmqdrv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

const (
	// routeWait bounds how long Setup waits for the name server to route a new topic.
	routeWait = 10 * time.Second
	// dispatchWait bounds how long Setup waits for a broker to count in its queues every
	// message it stored (other producers may keep it busy: the ends read then are the
	// nearest the broker gives).
	dispatchWait = time.Second
	// closeWait bounds a client's shutdown (a dead broker cannot answer).
	closeWait = 5 * time.Second
)

// Open checks that a name server answers and knows at least one master broker, and that the
// masters answer, then returns the run's driver.
func Open(ctx context.Context, cfg driver.Config) (driver.Driver, error) {
	setupClient()
	o, err := driver.Prepared[Options]("rocketmq", cfg.Options)
	if err != nil {
		return nil, err
	}
	if cfg.Destination == "" {
		return nil, errors.New("rocketmq: destination (topic) is empty")
	}
	if strings.EqualFold(strings.TrimSpace(cfg.URL), "embedded") {
		return nil, errors.New(`rocketmq: url "embedded" is only supported by the nats broker; give a rocketmq:// URL`)
	}
	addrs, err := nameServers(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("rocketmq: %w", err)
	}
	group := o.Group
	if group == "" {
		run := cfg.RunID
		if run == "" {
			run = strconv.FormatInt(time.Now().UnixNano(), 10)
		}
		group = groupName(run)
	}
	subs := max(cfg.Subscriptions, 1)
	d := &rmqDriver{cfg: cfg, opts: o, namesrv: addrs, group: group, subs: subs}
	if err := d.refreshMasters(ctx); err != nil {
		return nil, err
	}
	if err := d.pingMasters(ctx); err != nil {
		return nil, err
	}
	return d, nil
}

type rmqDriver struct {
	cfg     driver.Config
	opts    *Options
	namesrv []string // name servers, host:port
	group   string   // subscription 0's consumer group
	subs    int      // subscriptions, one consumer group each

	mu           sync.Mutex
	masters      map[string]string // broker name → master address
	topicCreated bool
	// groupNew[sub]: subscription sub's group is new to the brokers (its retry topic,
	// "%RETRY%<group>", which the broker creates when the first consumer joins, did not
	// exist at Setup), so the run owns it: Teardown removes it. Run-named groups always are.
	groupNew []bool

	startMu sync.Mutex                // serialises consumers joining and leaving
	members map[string][]*rmqConsumer // started consumers by group
}

// refreshMasters asks the name servers, in turn, for the master brokers.
func (d *rmqDriver) refreshMasters(ctx context.Context) error {
	var errs []error
	for _, ns := range d.namesrv {
		m, err := clusterMasters(ctx, ns)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(m) == 0 {
			return fmt.Errorf("rocketmq: name server %s knows no master broker (none registered yet?)", ns)
		}
		d.mu.Lock()
		d.masters = m
		d.mu.Unlock()
		return nil
	}
	return d.classify(strings.Join(d.namesrv, ","), "name server", errors.Join(errs...))
}

// classify turns a transport failure into an UnreachableError naming what was dialled.
func (d *rmqDriver) classify(addr, what string, err error) error {
	if driver.IsUnreachable(err) {
		return &driver.UnreachableError{Broker: "rocketmq", Address: addr + " (" + what + ")", Err: err}
	}
	return fmt.Errorf("rocketmq: %s %s: %w", what, addr, err)
}

// pingMasters makes one admin call to every master broker (the max offset of a queue of the
// broker's default topic: any answer, an error code too, proves the broker is there).
func (d *rmqDriver) pingMasters(ctx context.Context) error {
	for name, addr := range d.mastersCopy() {
		if _, err := maxOffset(ctx, addr, "TBW102", 0); err != nil {
			var re *remoteError
			if errors.As(err, &re) {
				continue
			}
			return d.classify(addr, "broker "+name, err)
		}
	}
	return nil
}

func (d *rmqDriver) mastersCopy() map[string]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	m := make(map[string]string, len(d.masters))
	for k, v := range d.masters {
		m[k] = v
	}
	return m
}

// groupOf is subscription sub's consumer group: the run's group, then <group>-s<sub>.
func (d *rmqDriver) groupOf(sub int) string { return driver.SubscriptionName(d.group, "-", sub) }

// route asks the name servers for the topic's route (the first that answers).
func (d *rmqDriver) route(ctx context.Context) (*routeData, bool, error) {
	return d.routeOf(ctx, d.cfg.Destination)
}

// routeOf asks the name servers for a topic's route (the first that answers).
func (d *rmqDriver) routeOf(ctx context.Context, topic string) (*routeData, bool, error) {
	var errs []error
	for _, ns := range d.namesrv {
		r, ok, err := topicRoute(ctx, ns, topic)
		if err == nil {
			return r, ok, nil
		}
		errs = append(errs, err)
	}
	return nil, false, d.classify(strings.Join(d.namesrv, ","), "name server", errors.Join(errs...))
}

// Setup creates the topic on every master unless the name server routes it already, and
// waits until it does; on an existing topic, it moves run-named groups to the end of it.
func (d *rmqDriver) Setup(ctx context.Context) error {
	// Checked here, not in Open: a scenario's destination was checked at parse time, and
	// the shared tests open drivers with dotted names they never set up.
	if err := checkTopic(d.cfg.Destination, d.opts); err != nil {
		return fmt.Errorf("rocketmq: %w", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.groupNew = make([]bool, d.subs)
	for sub := range d.groupNew {
		_, ok, err := d.routeOf(ctx, "%RETRY%"+d.groupOf(sub))
		if err != nil {
			return err
		}
		d.groupNew[sub] = !ok
	}
	r, exists, err := d.route(ctx)
	if err != nil {
		return err
	}
	if exists {
		return d.skipToEnd(ctx, r)
	}
	for name, addr := range d.masters {
		if err := createTopic(ctx, addr, d.cfg.Destination, d.opts.Queues); err != nil {
			return d.classify(addr, "broker "+name+": create topic "+d.cfg.Destination, err)
		}
	}
	d.topicCreated = true
	deadline := time.Now().Add(routeWait)
	for {
		if _, ok, err := d.route(ctx); err != nil {
			return err
		} else if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("rocketmq: the name server does not route topic %s %v after creating it", d.cfg.Destination, routeWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// skipToEnd commits every new group's offset at the current end of each of the topic's
// queues: a new group would otherwise start at the first message the broker still has
// (RocketMQ's broker answers offset 0 for an unknown group while that message is in
// memory), and read earlier runs' messages. A group that existed keeps its offsets. The ends
// are read once the broker's queues count every message it stored (dispatched): an earlier
// run's last sends, answered a moment ago, would otherwise lie beyond them.
func (d *rmqDriver) skipToEnd(ctx context.Context, r *routeData) error {
	if !slices.Contains(d.groupNew, true) {
		return nil // nothing to commit: no wait for the dispatch, no ends to read
	}
	for _, q := range r.QueueDatas {
		addr := d.masters[q.BrokerName]
		if addr == "" {
			continue
		}
		if err := dispatched(ctx, addr); err != nil {
			return d.classify(addr, "broker "+q.BrokerName, err)
		}
		for sub := 0; sub < d.subs; sub++ {
			if !d.groupNew[sub] {
				continue
			}
			if err := createGroup(ctx, addr, d.groupOf(sub)); err != nil {
				return d.classify(addr, "broker "+q.BrokerName, err)
			}
		}
		for i := 0; i < q.ReadQueueNums; i++ {
			end, err := maxOffset(ctx, addr, d.cfg.Destination, i)
			if err != nil {
				return d.classify(addr, "broker "+q.BrokerName, err)
			}
			for sub := 0; sub < d.subs; sub++ {
				if !d.groupNew[sub] {
					continue
				}
				if err := commitOffset(ctx, addr, d.groupOf(sub), d.cfg.Destination, i, end); err != nil {
					return d.classify(addr, "broker "+q.BrokerName, err)
				}
			}
		}
	}
	return nil
}

// dispatched waits, at most dispatchWait, until a broker's consume queues count every message
// its commit log holds.
func dispatched(ctx context.Context, broker string) error {
	deadline := time.Now().Add(dispatchWait)
	for {
		behind, err := dispatchBehind(ctx, broker)
		if err != nil || behind == 0 || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Teardown removes the consumer groups new at Setup and their retry topics, then the topic if
// this run created it (unless keep).
func (d *rmqDriver) Teardown(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var errs []error
	for sub, isNew := range d.groupNew {
		if isNew {
			g := d.groupOf(sub)
			for _, addr := range d.masters {
				errs = append(errs, deleteGroup(ctx, addr, g))
			}
			if err := d.deleteTopic(ctx, "%RETRY%"+g); err != nil {
				errs = append(errs, err)
			} else {
				d.groupNew[sub] = false
			}
		}
	}
	if d.topicCreated && !d.opts.Keep {
		if err := d.deleteTopic(ctx, d.cfg.Destination); err != nil {
			errs = append(errs, err)
		} else {
			d.topicCreated = false
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("rocketmq: teardown: %w", err)
	}
	return nil
}

// deleteTopic removes a topic from every master broker, then from the name servers.
func (d *rmqDriver) deleteTopic(ctx context.Context, topic string) error {
	for _, addr := range d.masters {
		if err := deleteTopicInBroker(ctx, addr, topic); err != nil {
			return err
		}
	}
	for _, ns := range d.namesrv {
		if err := deleteTopicInNamesrv(ctx, ns, topic); err != nil {
			return err
		}
	}
	return nil
}

// DestinationExists reports whether the name server routes the topic.
func (d *rmqDriver) DestinationExists(ctx context.Context) (exists, applicable bool, err error) {
	_, ok, err := d.route(ctx)
	return ok, true, err
}

// BrokerStats: Backlog is subscription 0's consumer-group lag summed over the masters (the
// broker's offsets minus the group's committed ones; consumers commit with every pull and
// every 5 s). RocketMQ's protocol exposes neither CPU time nor memory.
func (d *rmqDriver) BrokerStats(ctx context.Context) (driver.Stats, error) {
	st := driver.UnknownStats()
	var sum int64
	for name, addr := range d.mastersCopy() {
		n, err := backlog(ctx, addr, d.group, d.cfg.Destination)
		if err != nil {
			return st, d.classify(addr, "broker "+name, err)
		}
		sum += n
	}
	st.Backlog = sum
	return st, nil
}

// Close holds nothing: every client closes with its publisher or consumer.
func (d *rmqDriver) Close() error { return nil }

var instances atomic.Int64

// instanceName is a client instance name unique in this process: rocketmq-client-go shares
// one client (and its connections) between producers and consumers of the same instance name.
func instanceName(kind string, id int) string {
	return fmt.Sprintf("mqbench-%d-%s%d-%d", os.Getpid(), kind, id, instances.Add(1))
}

func (d *rmqDriver) resolver() primitive.NsResolver {
	return primitive.NewPassthroughResolver(d.namesrv)
}

var (
	_ driver.Driver      = (*rmqDriver)(nil)
	_ driver.BrokerStats = (*rmqDriver)(nil)
	_ driver.FanOut      = (*rmqDriver)(nil)
)
