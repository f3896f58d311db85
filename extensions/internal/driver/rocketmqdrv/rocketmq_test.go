package rocketmqdrv

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// rmqURL returns the name server to test against (MQBENCH_ROCKETMQ_URL, default
// rocketmq://127.0.0.1:9976, scripts/brokers/start.sh rocketmq). When it does not answer, the
// test is skipped, unless MQBENCH_REQUIRE_BROKERS=1, which makes it a failure.
func rmqURL(t testing.TB) string { return drivertest.BrokerURL(t, "rocketmq") }

// unique is a topic name RocketMQ accepts (no dots).
func unique(name string) string {
	return fmt.Sprintf("mqbench-test-%s-%d", name, time.Now().UnixNano())
}

func runID(name string) string { return fmt.Sprintf("run-%s-%d", name, time.Now().UnixNano()) }

// The broker tests run one after another, not in parallel: each sends 2000 messages as fast
// as the client goes, and several at once on a just-started broker (cold JIT) on a busy
// 2-core machine overflow its send queue (refused as busy after waitTimeMillsInSendQueue)
// or the client's fixed 3 s request timeout. For the same reason "sync" runs first: its
// 2000 round trips, one at a time, warm the broker's send path. Unpaced async sends first
// took up to 2.8 s on a just-started broker (4 runs; one CI run passed 3 s); after "sync",
// 0.36–0.57 s.
func TestConformance(t *testing.T) {
	noRaceDetector(t)
	url := rmqURL(t)
	for _, tc := range []struct {
		name   string
		opts   *Options
		shared bool
	}{
		{name: "sync", opts: &Options{Send: sendSync}},
		{name: "async", opts: &Options{}},
		{name: "batch-100", opts: &Options{PublishBatch: 100}},
		{name: "shared-batch-linger", opts: &Options{PublishBatch: 32, PublishLinger: 2 * time.Millisecond}, shared: true},
		{name: "shared-async-2-queues", opts: &Options{Queues: 2, PullBatchSize: 8}, shared: true},
		{name: "named-group", opts: &Options{Group: fmt.Sprintf("mqbench-test-named-%d", time.Now().UnixNano())}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Defaults()
			cfg := driver.Config{URL: url, Destination: unique(tc.name), Options: tc.opts, RunID: runID(tc.name)}
			if tc.shared {
				drivertest.RunShared(t, "rocketmq", cfg)
			} else {
				drivertest.Run(t, "rocketmq", cfg)
			}
		})
	}
}

// TestOneway: oneway sends have no ack; on one loopback broker every message still arrives.
func TestOneway(t *testing.T) {
	noRaceDetector(t)
	url := rmqURL(t)
	o := &Options{Send: sendOneway}
	o.Defaults()
	drivertest.Run(t, "rocketmq", driver.Config{URL: url, Destination: unique("oneway"), Options: o, RunID: runID("oneway")})
}

func TestFanOut(t *testing.T) {
	noRaceDetector(t)
	url := rmqURL(t)
	o := &Options{Queues: 4}
	o.Defaults()
	drivertest.RunFanOut(t, "rocketmq", driver.Config{URL: url, Destination: unique("fanout"), Options: o, RunID: runID("fanout")})
}

// TestBrokerStats: 500 messages nobody reads are the run group's lag (Backlog); RocketMQ
// exposes neither CPU time nor resident memory.
func TestBrokerStats(t *testing.T) {
	noRaceDetector(t)
	url := rmqURL(t)
	o := &Options{}
	o.Defaults()
	cfg := driver.Config{URL: url, Destination: unique("stats"), Options: o, RunID: runID("stats")}
	drivertest.BrokerStats(t, "rocketmq", cfg, 500, drivertest.StatsWant{Backlog: 500})
}

// TestKeptTopic: with keep, Teardown leaves the topic it created; a second run on it
// creates nothing, starts its group at the end (it does not read the first run's
// messages) and leaves the topic in place.
func TestKeptTopic(t *testing.T) {
	noRaceDetector(t)
	url := rmqURL(t)
	ctx := context.Background()
	topic := unique("kept")
	open := func(o *Options, run string) *rmqDriver {
		o.Defaults()
		d, err := Open(ctx, driver.Config{URL: url, Destination: topic, Options: o, RunID: run})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d.(*rmqDriver)
	}
	d := open(&Options{Keep: true}, runID("kept1"))
	defer func() { _ = d.deleteTopic(ctx, topic) }()
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	if !d.topicCreated {
		t.Fatal("first Setup did not create the topic")
	}
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		a, err := p.Send(ctx, driver.Message{Value: fmt.Appendf(nil, "old %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	p.Close()
	if err := d.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := d.DestinationExists(ctx); err != nil || !ok {
		t.Fatalf("after Teardown with keep: exists %v (%v), want the topic kept", ok, err)
	}

	d2 := open(&Options{}, runID("kept2"))
	if err := d2.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	if d2.topicCreated {
		t.Fatal("second Setup created the existing topic")
	}
	// The new group starts at the end: none of the first run's 20 messages waits for it.
	for name, addr := range d2.masters {
		if n, err := backlog(ctx, addr, d2.groupOf(0), topic); err != nil || n != 0 {
			t.Errorf("broker %s: the second run's group has %d of the first run's messages before it (%v), want 0", name, n, err)
		}
	}
	got := make(chan string, 100)
	c, err := d2.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx, func(v []byte, _ time.Time) { got <- string(v) }); err != nil {
		t.Fatal(err)
	}
	p2, err := d2.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, err := p2.Send(ctx, driver.Message{Value: []byte("new")})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	p2.Close()
	select {
	case v := <-got:
		if v != "new" {
			t.Errorf("second run's consumer got %q first, want only the second run's message", v)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("second run's consumer got nothing in 20 s")
	}
	c.Close()
	if err := d2.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := d2.DestinationExists(ctx); err != nil || !ok {
		t.Fatalf("after the second Teardown: exists %v (%v), want the topic left (not created by the run)", ok, err)
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	drivertest.Unreachable(t, "rocketmq", "rocketmq://127.0.0.1:1", nil)
}

func TestChecks(t *testing.T) {
	for _, u := range []string{"rocketmq://127.0.0.1:9876", "127.0.0.1:9876", "rocketmq://localhost", "rocketmq://a:1,rocketmq://b:2", "rocketmq://[::1]:9876"} {
		if err := checkURL(u); err != nil {
			t.Errorf("checkURL(%q): %v", u, err)
		}
	}
	for _, u := range []string{"nsq://127.0.0.1:9876", "rocketmq://127.0.0.1:9876/x", "rocketmq://u:p@127.0.0.1:9876", "rocketmq://127.0.0.1:99999"} {
		if err := checkURL(u); err == nil {
			t.Errorf("checkURL(%q) accepted", u)
		}
	}
	if got, _ := nameServers("rocketmq://h"); len(got) != 1 || got[0] != "h:9876" {
		t.Errorf("nameServers: %v, want [h:9876]", got)
	}
	for _, n := range []string{"a", "bench-latency", "A-b_c1", strings.Repeat("x", 127)} {
		if err := checkTopic(n, nil); err != nil {
			t.Errorf("checkTopic(%q): %v", n, err)
		}
	}
	for _, n := range []string{"", "a.b", "a b", "a%b", strings.Repeat("x", 128), "TBW102", "rmq_sys_x"} {
		if err := checkTopic(n, nil); err == nil {
			t.Errorf("checkTopic(%q) accepted", n)
		}
	}
	if got := groupName(strings.Repeat("r", 200) + "/x"); len(got) > maxGroup-8 || checkName("group", got, maxGroup) != nil {
		t.Errorf("groupName: %q", got)
	}
	o := &Options{Send: "fast", Queues: 2000, Group: "a.b", PullBatchSize: -1, MaxInFlight: 70000, PublishBatch: 1}
	if errs := o.Validate(); len(errs) != 5 {
		t.Errorf("Validate: %v, want 5 errors", errs)
	}
	for _, o := range []*Options{{Send: sendSync, PublishBatch: 10}, {PublishBatch: 1001}, {PublishBatch: 10, PublishLinger: 2 * time.Second}} {
		o.Defaults()
		if errs := o.Validate(); len(errs) != 1 || errs[0].Field != "publish_"+map[bool]string{true: "linger", false: "batch"}[o.PublishLinger > 0] {
			t.Errorf("Validate(%+v): %v, want one publish_batch/publish_linger error", o, errs)
		}
	}
	if got := quoteIntKeys([]byte(`{"brokerAddrs":{0:"127.0.0.1:1",1:"h:2"}}`)); string(got) != `{"brokerAddrs":{"0":"127.0.0.1:1","1":"h:2"}}` {
		t.Errorf("quoteIntKeys: %s", got)
	}
}

func BenchmarkPublishConsume1KB(b *testing.B) {
	noRaceDetector(b)
	url := rmqURL(b)
	o := &Options{}
	o.Defaults()
	drivertest.Benchmark(b, "rocketmq", driver.Config{URL: url, Destination: unique("bench"), Options: o}, 1024)
}

// TestAck: an async send's answer may arrive twice (a timeout racing the answer); the first
// resolves the ack and frees the in-flight slot once. Runs under -race without a broker.
func TestAck(t *testing.T) {
	slots := make(chan struct{}, 1)
	slots <- struct{}{}
	a := &ack{Pending: driver.NewPending(), release: func() { <-slots }}
	first := fmt.Errorf("first")
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 0 {
				a.resolve(first)
			} else {
				a.resolve(nil)
			}
		}()
	}
	wg.Wait()
	if len(slots) != 0 {
		t.Errorf("%d slots still taken, want 0", len(slots))
	}
	if err := a.Wait(context.Background()); err != first && err != nil {
		t.Errorf("Wait: %v", err)
	}
	if err := resultErr(nil, nil); err == nil {
		t.Error("resultErr(nil, nil) accepted a missing result")
	}
}

// TestBatchSend: 1,000 keyless messages sent without pause through publish_batch 100 are
// acknowledged in fewer requests than messages; 100 keyed ones are sent one per request (a
// batch goes to one queue, a keyed message to its key's).
func TestBatchSend(t *testing.T) {
	url := rmqURL(t)
	t.Parallel()
	ctx := context.Background()
	o := &Options{PublishBatch: 100, PublishLinger: 5 * time.Millisecond}
	o.Defaults()
	_, pub := drivertest.OpenPublisher(t, Open, driver.Config{URL: url, Destination: unique("batch"), Options: o, RunID: runID("batch")})
	bp := pub.(*batchPublisher)
	send := func(n int, key func(i int) []byte) int64 {
		before := bp.requests.Load()
		drivertest.SendNumbered(ctx, t, pub, n, key)
		return bp.requests.Load() - before
	}
	if r := send(1000, nil); r < 10 || r >= 500 {
		t.Errorf("1000 keyless messages in %d requests, want 10..499 (batches of up to 100)", r)
	}
	if r := send(100, func(i int) []byte { return []byte(fmt.Sprint(i % 4)) }); r != 100 {
		t.Errorf("100 keyed messages in %d requests, want 100", r)
	}
}
