package pulsardrv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// pulsarURL returns the broker to test against (MQBENCH_PULSAR_URL, default
// pulsar://127.0.0.1:6750, scripts/brokers/start.sh pulsar). When it does not answer, the
// test is skipped, unless MQBENCH_REQUIRE_BROKERS=1, which makes it a failure.
func pulsarURL(t testing.TB) string { return drivertest.BrokerURL(t, "pulsar") }

func unique(name string) string {
	return fmt.Sprintf("mqbench.test.%s.%d", name, time.Now().UnixNano())
}

func run(name string) string { return fmt.Sprintf("run-%s-%d", name, time.Now().UnixNano()) }

func TestConformance(t *testing.T) {
	url := pulsarURL(t)
	for _, tc := range []struct {
		name   string
		opts   *Options
		shared bool
	}{
		{name: "default", opts: &Options{}},
		{name: "shared-unbatched", opts: &Options{Batching: ptr(false)}, shared: true},
		{name: "partitioned-key-shared", opts: &Options{Partitions: 3, SubscriptionType: "key_shared"}, shared: true},
		{name: "failover", opts: &Options{SubscriptionType: "failover", AckGroupTime: time.Millisecond}},
		{name: "exclusive-named", opts: &Options{SubscriptionType: "exclusive", Subscription: "mqbench-named"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Defaults()
			cfg := driver.Config{URL: url, Destination: unique(tc.name), Options: tc.opts, RunID: run(tc.name)}
			if tc.shared {
				drivertest.RunShared(t, "pulsar", cfg)
			} else {
				drivertest.Run(t, "pulsar", cfg)
			}
		})
	}
}

// TestNonPersistent: a non-persistent topic drops what a consumer has no room for at that
// moment (the suite's burst of 2000 from two publishers lost a few hundred now and then on a
// busy machine), so it is checked at a pace: 400 messages, one every 2 ms, all delivered,
// partitioned or not; Teardown removes a partitioned topic it created.
func TestNonPersistent(t *testing.T) {
	url := pulsarURL(t)
	for _, parts := range []int{0, 2} {
		t.Run(fmt.Sprintf("partitions-%d", parts), func(t *testing.T) {
			t.Parallel()
			o := &Options{Persistent: ptr(false), Partitions: parts}
			o.Defaults()
			if promisesDelivery(o) || o.AckMode() != "receipt (in memory)" {
				t.Errorf("non-persistent: PromisesDelivery %v, AckMode %q", promisesDelivery(o), o.AckMode())
			}
			ctx := context.Background()
			dd, err := Open(ctx, driver.Config{URL: url, Destination: unique("np"), Options: o, RunID: run("np")})
			if err != nil {
				t.Fatal(err)
			}
			defer dd.Close()
			d := dd.(*pulsarDriver)
			if err := d.Setup(ctx); err != nil {
				t.Fatal(err)
			}
			c, err := d.NewConsumer(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			var got atomic.Int64
			if err := c.Start(ctx, func([]byte, time.Time) { got.Add(1) }); err != nil {
				t.Fatal(err)
			}
			p, err := d.NewPublisher(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			const n = 400
			for i := range n {
				a, err := p.Send(ctx, driver.Message{Value: fmt.Appendf(nil, "np %d", i)})
				if err == nil {
					err = a.Wait(ctx)
				}
				if err != nil {
					t.Fatalf("send %d: %v", i, err)
				}
				time.Sleep(2 * time.Millisecond)
			}
			for deadline := time.Now().Add(5 * time.Second); got.Load() < n && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			p.Close()
			c.Close()
			if got.Load() != n {
				t.Errorf("received %d of %d", got.Load(), n)
			}
			if err := d.Teardown(ctx); err != nil {
				t.Fatal(err)
			}
			if exists, applicable, err := d.DestinationExists(ctx); err != nil || exists || applicable != (parts > 0) {
				t.Errorf("after Teardown: exists %v applicable %v (%v)", exists, applicable, err)
			}
		})
	}
}

// TestFanOut: three subscriptions on one topic each get every message, shared by their two
// consumers each; on a partitioned topic too. Unbatched: a shared subscription hands out up
// to 20 entries in a row to one consumer (dispatcherMaxRoundRobinBatchSize), so 600 messages
// in a few batches would all go to one of the two.
func TestFanOut(t *testing.T) {
	url := pulsarURL(t)
	for _, tc := range []struct {
		name string
		opts *Options
	}{
		{"persistent", &Options{Batching: ptr(false)}},
		{"partitioned", &Options{Partitions: 2, Batching: ptr(false)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Defaults()
			drivertest.RunFanOut(t, "pulsar", driver.Config{URL: url, Destination: unique("fanout-" + tc.name), Options: tc.opts, RunID: run(tc.name)})
		})
	}
}

// TestBrokerStats: 500 messages nobody reads are the run's subscription's backlog; the JVM's
// CPU and resident memory come from /metrics.
func TestBrokerStats(t *testing.T) {
	url := pulsarURL(t)
	t.Parallel()
	o := &Options{}
	o.Defaults()
	cfg := driver.Config{URL: url, Destination: unique("stats"), Options: o, RunID: run("stats")}
	drivertest.BrokerStats(t, "pulsar", cfg, 500, drivertest.StatsWant{Backlog: 500, CPU: true, Memory: true})
}

// TestKept: with keep, Teardown leaves the topic and the subscription; a second run on the
// existing topic creates (and later deletes) only its own subscription.
func TestKept(t *testing.T) {
	url := pulsarURL(t)
	t.Parallel()
	ctx := context.Background()
	dest := unique("kept")
	open := func(o *Options, run string) *pulsarDriver {
		o.Defaults()
		d, err := Open(ctx, driver.Config{URL: url, Destination: dest, Options: o, RunID: run})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d.(*pulsarDriver)
	}
	d := open(&Options{Keep: true}, "kept1")
	defer d.admin.deleteTopic(ctx, d.topic, false)
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	if !d.topicCreated || !d.subsCreated[0] {
		t.Fatalf("first Setup: topicCreated=%v subsCreated=%v, want both", d.topicCreated, d.subsCreated)
	}
	if err := d.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := d.SubscriptionExists(ctx, 0); err != nil || !ok {
		t.Fatalf("after Teardown with keep: subscription exists %v (%v), want it kept", ok, err)
	}

	d2 := open(&Options{}, "kept2")
	if err := d2.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	if d2.topicCreated || !d2.subsCreated[0] {
		t.Fatalf("second Setup: topicCreated=%v subsCreated=%v, want the subscription only", d2.topicCreated, d2.subsCreated)
	}
	if err := d2.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
	exists, _, err := d2.DestinationExists(ctx)
	sub2, _, err2 := d2.SubscriptionExists(ctx, 0)
	sub1, _, err3 := d.SubscriptionExists(ctx, 0)
	if err := errors.Join(err, err2, err3); err != nil || !exists || sub2 || !sub1 {
		t.Fatalf("after the second Teardown: topic %v, its subscription %v, the kept one %v (%v); want the topic and the kept subscription only", exists, sub2, sub1, err)
	}
}

// TestPartitionsMismatch: an existing partitioned topic with another partition count is an
// error naming the option, not a silent run on other partitions.
func TestPartitionsMismatch(t *testing.T) {
	url := pulsarURL(t)
	t.Parallel()
	ctx := context.Background()
	dest := unique("mismatch")
	open := func(n int) *pulsarDriver {
		o := &Options{Partitions: n}
		o.Defaults()
		d, err := Open(ctx, driver.Config{URL: url, Destination: dest, Options: o, RunID: run("mismatch")})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d.(*pulsarDriver)
	}
	d := open(2)
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	defer d.Teardown(ctx)
	err := open(3).Setup(ctx)
	if err == nil || !strings.Contains(err.Error(), "exists with 2 partitions") || !strings.Contains(err.Error(), "option partitions") {
		t.Fatalf("Setup with 3 partitions on a 2-partition topic: %v", err)
	}
}

// TestNoSuchNamespace: the broker refuses a topic in a namespace that does not exist: an
// error that is not an UnreachableError (mqbench exits 113 for it).
func TestNoSuchNamespace(t *testing.T) {
	url := pulsarURL(t)
	t.Parallel()
	o := &Options{}
	o.Defaults()
	ctx := context.Background()
	d, err := Open(ctx, driver.Config{URL: url, Destination: "nosuchtenant/ns/t", Options: o, RunID: run("nons")})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	err = d.Setup(ctx)
	var ue *driver.UnreachableError
	if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("Setup in a missing namespace: %v, want the broker's refusal", err)
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	drivertest.Unreachable(t, "pulsar", "pulsar://127.0.0.1:1", nil)
}

// TestUnreachableAdmin: the binary port answers but the admin API given does not.
func TestUnreachableAdmin(t *testing.T) {
	url := pulsarURL(t)
	t.Parallel()
	o := &Options{AdminURL: "http://127.0.0.1:1"}
	o.Defaults()
	_, err := Open(context.Background(), driver.Config{URL: url, Destination: "x", Options: o})
	var ue *driver.UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "admin_url") {
		t.Fatalf("got %v, want an UnreachableError naming admin_url", err)
	}
}

func TestChecks(t *testing.T) {
	for _, u := range []string{"pulsar://127.0.0.1:6750", "pulsar://localhost", "pulsar://[::1]:6650", "PULSAR://h:1/"} {
		if err := checkURL(u); err != nil {
			t.Errorf("checkURL(%q): %v", u, err)
		}
	}
	for _, u := range []string{"127.0.0.1:6650", "pulsar://a:1,pulsar://b:2", "pulsar://h:1/x", "pulsar://u:p@h:1", "pulsar://h:99999", "http://h:8080"} {
		if err := checkURL(u); err == nil {
			t.Errorf("checkURL(%q) accepted", u)
		}
	}
	if got, tls, _ := brokerAddress("pulsar://h"); got != "h:6650" || tls || defaultAdminURL(got, tls) != "http://h:8080" {
		t.Errorf("pulsar://h: %s, admin %s", got, defaultAdminURL(got, tls))
	}
	if got, tls, _ := brokerAddress("pulsar+ssl://h"); got != "h:6651" || !tls || defaultAdminURL(got, tls) != "https://h:8443" {
		t.Errorf("pulsar+ssl://h: %s, admin %s", got, defaultAdminURL(got, tls))
	}
	o := &Options{}
	o.Defaults()
	for _, n := range []string{"a", "bench.latency", "A-b_c.1", "t/ns/x", "x=y:z", strings.Repeat("x", 255)} {
		if err := checkTopic(n, o); err != nil {
			t.Errorf("checkTopic(%q): %v", n, err)
		}
	}
	for _, n := range []string{"", "a b", "a/b", "a/b/c/d", "persistent://public/default/x", "x-partition-0", strings.Repeat("x", 256), "é", "t//x"} {
		if err := checkTopic(n, o); err == nil {
			t.Errorf("checkTopic(%q) accepted", n)
		}
	}
	tp, _ := parseTopic("t/ns/x", &Options{Persistent: ptr(false)})
	if tp.String() != "non-persistent://t/ns/x" || tp.path() != "/non-persistent/t/ns/x" {
		t.Errorf("parseTopic: %s %s", tp, tp.path())
	}
	bad := &Options{Partitions: -1, Subscription: "a b", SubscriptionType: "queue", BatchDelay: -1, BatchMaxMessages: -1,
		BatchMaxBytes: 10, SendTimeout: time.Millisecond, MaxPendingMessages: -1, ReceiverQueueSize: -1,
		AckGroupTime: time.Hour, AdminURL: "ftp://x"}
	bad.Defaults()
	if errs := bad.Validate(); len(errs) != 11 {
		t.Errorf("Validate: %d errors %v, want 11", len(errs), errs)
	}
	if errs := o.Validate(); len(errs) != 0 {
		t.Errorf("defaults do not validate: %v", errs)
	}
	var b capped
	for range 10 {
		b.Next()
	}
	if b.Next() != maxReconnectWait || !b.IsMaxBackoffReached() {
		t.Errorf("back-off not capped at %v", maxReconnectWait)
	}
}

func BenchmarkPublishConsume1KB(b *testing.B) {
	url := pulsarURL(b)
	o := &Options{}
	o.Defaults()
	drivertest.Benchmark(b, "pulsar", driver.Config{URL: url, Destination: unique("bench"), Options: o}, 1024)
}
