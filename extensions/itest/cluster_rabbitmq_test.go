package itest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/mqbench/xk6-mqbench/internal/driver/rabbitmgmt"
)

// The three-node RabbitMQ cluster of scripts/brokers/cluster.sh (fixed ports: node N has AMQP
// 5700+N, management 15700+N, prometheus 15790+N, Erlang distribution 25700+N; Erlang name
// rabbit-N@localhost). Like the NATS one it runs in the shared state dir: start reuses a
// cluster a crashed run left, the cleanup stops it.
const (
	rabbitFailoverQueue = "mqbench-failover"
	rabbitClusterSize   = 3
)

func rabbitAMQPURL(node int) string {
	return fmt.Sprintf("amqp://guest:guest@127.0.0.1:%d/", 5700+node)
}

func rabbitMgmt(node int) *rabbitmgmt.Client {
	return rabbitmgmt.New(fmt.Sprintf("http://127.0.0.1:%d", 15700+node), "127.0.0.1", "guest", "guest")
}

func rabbitDial(node int) (*amqp.Connection, error) {
	return amqp.DialConfig(rabbitAMQPURL(node), amqp.Config{Dial: amqp.DefaultDial(2 * time.Second)})
}

var rabbitNodeName = regexp.MustCompile(`^rabbit-(\d+)@localhost$`)

// rabbitNodeOf: the Erlang node rabbit-N@localhost is node N (0: not a cluster node).
func rabbitNodeOf(name string) int {
	if m := rabbitNodeName.FindStringSubmatch(name); m != nil {
		if n, _ := strconv.Atoi(m[1]); n >= 1 && n <= rabbitClusterSize {
			return n
		}
	}
	return 0
}

// rabbitPlacement asks the management API of the given nodes, in order, until one answers:
// the queue's leader node and its members (nodes that were asked and are down are skipped).
func rabbitPlacement(ctx context.Context, q string, nodes ...int) (rabbitmgmt.Queue, error) {
	var err error
	for _, n := range nodes {
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		var info rabbitmgmt.Queue
		info, err = rabbitMgmt(n).Queue(c, q)
		cancel()
		if err == nil {
			return info, nil
		}
	}
	return rabbitmgmt.Queue{}, err
}

// A scenario whose faults kill the leader (cluster_faults_test.go).
func TestScenarioFaultsRabbitMQCluster(t *testing.T) {
	testScenarioFaults(t, "rabbitmq", rabbitNode, []faultCase{{"cluster-rabbitmq-safe", true, 2 * time.Second}})
}

// A durable quorum queue; its leader's node SIGKILLed while a publisher with confirms keeps
// publishing through another node; the node restarted: every confirmed message is consumed
// at least once (duplicates are allowed, AMQP 0-9-1 publishing is at-least-once, and counted).
func TestRabbitMQClusterFailover(t *testing.T) {
	k6Binary(t) // runs with the other itests (make test), skips like them otherwise
	waitClusterTurn(t, "rabbitmq", 22*time.Second)
	began := time.Now()
	t.Log(startCluster(t, "rabbitmq"))
	checkRabbitFormed(t)
	checkRabbitLoopback(t)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// Declared through node 2 with leader locator client-local, so node 2 should lead and the
	// publisher can stay on node 1; if the leader is elsewhere, the publisher avoids it anyway.
	declareRabbitQueue(t, 2)
	info, err := rabbitPlacement(ctx, rabbitFailoverQueue, 1, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	leader := rabbitNodeOf(info.Leader)
	if leader == 0 || info.Type != "quorum" || len(info.Members) != rabbitClusterSize {
		t.Fatalf("queue %s: type %q, leader %q, members %v; want quorum with %d members", rabbitFailoverQueue, info.Type, info.Leader, info.Members, rabbitClusterSize)
	}
	pubNode := 1
	if leader == 1 {
		pubNode = 2
	}
	order := []int{pubNode} // the publisher's nodes, its own first, the leader's last
	for n := 1; n <= rabbitClusterSize; n++ {
		if n != pubNode && n != leader {
			order = append(order, n)
		}
	}
	order = append(order, leader)
	t.Logf("queue %s: leader %s, members %v; publisher on node %d", rabbitFailoverQueue, info.Leader, info.Members, pubNode)

	p := startRabbitPublisher(order)
	t.Cleanup(func() { close(p.abort); p.stop() })
	waitFor(t, "1000 messages confirmed", time.Minute, func() bool { return p.count() >= 1000 })

	if got := mustCluster(t, "leader", "rabbitmq", rabbitFailoverQueue); got != strconv.Itoa(leader) {
		t.Errorf("cluster.sh leader says node %q, the management API %s", got, info.Leader)
	}
	before := p.count()
	killStart := time.Now()
	out := mustCluster(t, "kill", "rabbitmq", strconv.Itoa(leader))
	killed := time.Now()
	t.Logf("%s (leader %s, after %d confirms; cluster.sh kill took %v)", out, info.Leader, before, killed.Sub(killStart).Round(time.Millisecond))

	var first time.Time
	waitFor(t, "a confirm after the kill", time.Minute, func() bool { first = p.firstAfter(killed); return !first.IsZero() })
	var newLeader string
	waitFor(t, "a new queue leader", 30*time.Second, func() bool {
		if i, err := rabbitPlacement(ctx, rabbitFailoverQueue, order[:len(order)-1]...); err == nil {
			newLeader = i.Leader
		}
		return rabbitNodeOf(newLeader) != 0 && newLeader != info.Leader
	})
	after := p.count()
	waitFor(t, "500 more confirms under the new leader", 30*time.Second, func() bool { return p.count() >= after+500 })
	res, err := p.stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("failover: first confirm %v after the kill returned (longest pause between confirms from the kill's start: %v); new leader %s; %d published (ids 0..%d), %d confirmed, %d publishes retried, %d nacks, %d reconnects, %d new channels",
		first.Sub(killed).Round(time.Millisecond), p.longestPause(killStart, first).Round(time.Millisecond), newLeader,
		res.published, res.published-1, len(res.acked), res.retries, res.nacks, res.reconnects, res.channels)

	restart := time.Now()
	out = mustCluster(t, "start", "rabbitmq", strconv.Itoa(leader))
	t.Logf("cluster.sh start rabbitmq %d (%v):\n%s", leader, time.Since(restart).Round(100*time.Millisecond), out)
	checkRabbitFormed(t)
	waitFor(t, "the queue with 3 members and a leader", 30*time.Second, func() bool {
		i, err := rabbitPlacement(ctx, rabbitFailoverQueue, 1, 2, 3)
		info = i
		return err == nil && len(i.Members) == rabbitClusterSize && rabbitNodeOf(i.Leader) != 0
	})
	t.Logf("after the restart: leader %s, members %v", info.Leader, info.Members)

	checkRabbitAtLeastOnce(t, pubNode, res)
	t.Logf("cluster.sh status rabbitmq:\n%s", mustCluster(t, "status", "rabbitmq"))
	if err := rabbitMgmt(pubNode).DeleteQueue(ctx, rabbitFailoverQueue); err != nil {
		t.Errorf("delete queue: %v", err)
	}
	t.Logf("test took %v before the cluster's stop", time.Since(began).Round(100*time.Millisecond))
}

// declareRabbitQueue (re)creates the durable quorum queue through node's AMQP port (a crashed
// run's queue is deleted first), its leader on that node (x-queue-leader-locator, 3.10+).
func declareRabbitQueue(t *testing.T, node int) {
	t.Helper()
	conn, err := rabbitDial(node)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ch.QueueDelete(rabbitFailoverQueue, false, false, false); err != nil {
		t.Fatal(err)
	}
	if _, err := ch.QueueDeclare(rabbitFailoverQueue, true, false, false, false, amqp.Table{
		"x-queue-type": "quorum", "x-queue-leader-locator": "client-local",
	}); err != nil {
		t.Fatal(err)
	}
}

// checkRabbitFormed: every node's management API lists the three nodes rabbit-1..3@localhost,
// all running (cluster.sh checked this and rabbitmqctl cluster_status; this is the test's own
// look).
func checkRabbitFormed(t *testing.T) {
	t.Helper()
	want := make([]string, rabbitClusterSize)
	for i := range want {
		want[i] = fmt.Sprintf("rabbit-%d@localhost", i+1)
	}
	for n := 1; n <= rabbitClusterSize; n++ {
		var nodes []struct {
			Name    string `json:"name"`
			Running bool   `json:"running"`
		}
		if err := rabbitAPI(n, "/api/nodes", &nodes); err != nil {
			t.Fatalf("node %d /api/nodes: %v", n, err)
		}
		var running []string
		for _, x := range nodes {
			if x.Running {
				running = append(running, x.Name)
			}
		}
		slices.Sort(running)
		if !slices.Equal(running, want) {
			t.Fatalf("node %d sees running nodes %v, want %v", n, running, want)
		}
	}
}

func rabbitAPI(node int, path string, v any) error {
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", 15700+node, path), nil)
	if err != nil {
		return err
	}
	req.SetBasicAuth("guest", "guest")
	c := http.Client{Timeout: 3 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// checkRabbitLoopback: each node's VM listens on its four ports on 127.0.0.1 only; then
// cluster.sh listeners, which also looks at epmd (shared by every Erlang node here, loopback
// only as well).
func checkRabbitLoopback(t *testing.T) {
	t.Helper()
	checkNodeSockets(t, "rabbitmq", func(n int) []int { return []int{5700 + n, 15700 + n, 15790 + n, 25700 + n} })
	if out, err := cluster(t, "listeners", "rabbitmq"); err != nil {
		t.Errorf("cluster.sh listeners rabbitmq: %v\n%s", err, out)
	}
}

// checkRabbitAtLeastOnce consumes the queue through node (manual acks) until every confirmed
// message has arrived and nothing more comes for a second: none may be missing; duplicates and
// messages delivered though never confirmed (published while the leader died) are counted.
func checkRabbitAtLeastOnce(t *testing.T, node int, res rabbitPublished) {
	t.Helper()
	conn, err := rabbitDial(node)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Qos(1000, 0, false); err != nil {
		t.Fatal(err)
	}
	deliveries, err := ch.Consume(rabbitFailoverQueue, "mqbench-itest-check", false, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, res.published)
	got, bad, pending := 0, 0, len(res.acked)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		idle := time.Second
		if pending > 0 {
			idle = 10 * time.Second // still waiting for confirmed ones
		}
		var d amqp.Delivery
		select {
		case d = <-deliveries:
		case <-time.After(idle):
		}
		if d.Body == nil {
			break // quiet for idle
		}
		got++
		if err := d.Ack(false); err != nil {
			t.Fatal(err)
		}
		id, err := strconv.Atoi(string(d.Body))
		if err != nil || id < 0 || id >= res.published || d.MessageId != string(d.Body) {
			bad++
			continue
		}
		if seen[id]++; seen[id] == 1 && res.acked[id] {
			pending--
		}
	}
	var missing, dupIDs, unconfirmed []int
	dups := 0
	for id, c := range seen {
		switch {
		case c == 0 && res.acked[id]:
			missing = append(missing, id)
		case c > 1:
			dupIDs = append(dupIDs, id)
			dups += c - 1
		}
		if c > 0 && !res.acked[id] {
			unconfirmed = append(unconfirmed, id)
		}
	}
	t.Logf("consumed %d messages through node %d: %d of %d confirmed ids, %d duplicates (ids %v), %d delivered though never confirmed (%v), %d unexpected",
		got, node, len(res.acked)-len(missing), len(res.acked), dups, head(dupIDs), len(unconfirmed), head(unconfirmed), bad)
	if len(missing) > 0 || bad > 0 {
		t.Errorf("lost %d confirmed messages (ids %v), %d unexpected deliveries", len(missing), head(missing), bad)
	}
	if q, err := ch.QueueDeclarePassive(rabbitFailoverQueue, true, false, false, false, amqp.Table{"x-queue-type": "quorum"}); err != nil {
		t.Errorf("queue after consuming: %v", err)
	} else if q.Messages != 0 {
		t.Errorf("queue still holds %d ready messages after consuming", q.Messages)
	}
}

// rabbitPublisher publishes ids 0, 1, 2, ... (body and message-id), persistent, with
// publisher confirms, in windows of up to 50 in flight. A message not confirmed within 2 s,
// nacked, or lost with its channel is published again (its id again: a duplicate if the
// broker had it after all). When its connection fails it reconnects to the next of its nodes;
// after a window with no confirm at all it opens a new channel (see below).
type rabbitPublisher struct {
	nodes []int
	mu    sync.Mutex
	times []time.Time // confirm times, in order of arrival
	res   rabbitPublished
	quit  chan struct{} // stop once every id published so far is confirmed
	abort chan struct{} // stop now (a failed test's cleanup)
	done  chan error
	once  sync.Once
}

type rabbitPublished struct {
	published                            int          // ids 0..published-1 were sent at least once
	acked                                map[int]bool // confirmed ids
	retries, nacks, reconnects, channels int          // channels: opened after the first
}

const rabbitWindow = 50

func startRabbitPublisher(nodes []int) *rabbitPublisher {
	p := &rabbitPublisher{nodes: nodes, quit: make(chan struct{}), abort: make(chan struct{}), done: make(chan error, 1),
		res: rabbitPublished{acked: map[int]bool{}}}
	go func() { p.done <- p.run() }()
	return p
}

func (p *rabbitPublisher) run() error {
	var conn *amqp.Connection
	var ch *amqp.Channel
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	node, next, quitting := 0, 0, false
	var retry []int
	lastAck := time.Now()
	for {
		select {
		case <-p.abort:
			return errors.New("aborted")
		case <-p.quit:
			quitting = true
		default:
		}
		if quitting && len(retry) == 0 {
			return nil
		}
		if time.Since(lastAck) > time.Minute {
			return fmt.Errorf("no confirm for a minute (%d ids waiting)", len(retry))
		}
		var err error
		if conn == nil || conn.IsClosed() {
			if conn != nil {
				p.count1(&p.res.reconnects)
				node = (node + 1) % len(p.nodes)
			}
			if conn, err = rabbitDial(p.nodes[node]); err != nil {
				conn = nil
				node = (node + 1) % len(p.nodes)
				time.Sleep(100 * time.Millisecond)
				continue
			}
			ch = nil
		}
		if ch == nil || ch.IsClosed() {
			if ch != nil {
				p.count1(&p.res.channels)
			}
			if ch, err = conn.Channel(); err == nil {
				err = ch.Confirm(false)
			}
			if err != nil {
				conn.Close() // and reconnect
				continue
			}
		}
		// A window: the retries first, then new ids.
		batch := retry[:min(len(retry), rabbitWindow)]
		retry = slices.Clone(retry[len(batch):])
		for !quitting && len(batch) < rabbitWindow {
			batch = append(batch, next)
			next++
		}
		p.mu.Lock()
		p.res.published = next
		p.mu.Unlock()
		confirms := make([]*amqp.DeferredConfirmation, len(batch))
		for i, id := range batch {
			body := strconv.Itoa(id)
			dc, err := ch.PublishWithDeferredConfirmWithContext(context.Background(), "", rabbitFailoverQueue, false, false, amqp.Publishing{
				DeliveryMode: amqp.Persistent, MessageId: body, ContentType: "text/plain", Body: []byte(body),
			})
			if err != nil {
				break // the channel is gone: the rest is retried
			}
			confirms[i] = dc
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		acked := 0
		for i, id := range batch {
			ok, err := false, error(nil)
			if confirms[i] != nil {
				ok, err = confirms[i].WaitContext(ctx)
			}
			p.mu.Lock()
			if ok {
				acked++
				p.res.acked[id] = true
				p.times = append(p.times, time.Now())
				lastAck = time.Now()
			} else {
				retry = append(retry, id)
				p.res.retries++
				if confirms[i] != nil && err == nil && !ch.IsClosed() {
					p.res.nacks++
				}
			}
			p.mu.Unlock()
		}
		cancel()
		if acked == 0 {
			// RabbitMQ 3.10: a channel whose first publish to a quorum queue found the
			// leader's node down nacks every later publish (its queue client keeps asking
			// that node), even after a new leader is elected: start over on a new channel.
			ch.Close()
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func (p *rabbitPublisher) count1(c *int) { p.mu.Lock(); *c++; p.mu.Unlock() }

func (p *rabbitPublisher) count() int { p.mu.Lock(); defer p.mu.Unlock(); return len(p.res.acked) }

// firstAfter: when the first confirm after t arrived (zero: none yet).
func (p *rabbitPublisher) firstAfter(t time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i, _ := slices.BinarySearchFunc(p.times, t, func(a, t time.Time) int { return a.Compare(t) }); i < len(p.times) {
		return p.times[i]
	}
	return time.Time{}
}

// longestPause: the longest time without a confirm between from and to (both ends count as
// confirms): the outage the kill caused, whatever the kill command's own time.
func (p *rabbitPublisher) longestPause(from, to time.Time) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	longest, prev := time.Duration(0), from
	for _, c := range p.times {
		if c.After(from) && !c.After(to) {
			longest, prev = max(longest, c.Sub(prev)), c
		}
	}
	return longest
}

func (p *rabbitPublisher) stop() (rabbitPublished, error) {
	var err error
	p.once.Do(func() { close(p.quit); err = <-p.done })
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.res, err
}
