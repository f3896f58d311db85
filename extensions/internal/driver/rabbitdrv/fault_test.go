package rabbitdrv

import (
	"cmp"
	"context"
	"encoding/binary"
	neturl "net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// faultSession opens a driver through a proxy, sets up a quorum queue, starts a consumer and a
// publisher (confirms) and checks that 100 messages go through.
func faultSession(t *testing.T) (*drivertest.Proxy, driver.Driver, *consumer, driver.Publisher, *atomic.Int64) {
	t.Helper()
	return faultSessionWith(t, &Options{QueueType: "quorum"}, nil)
}

// faultSessionWith is faultSession with other options; record, when not nil, also receives
// every delivery.
func faultSessionWith(t *testing.T, o *Options, record driver.Delivery) (*drivertest.Proxy, driver.Driver, *consumer, driver.Publisher, *atomic.Int64) {
	t.Helper()
	broker := rabbitURL(t)
	u, err := neturl.Parse(broker)
	if err != nil {
		t.Fatal(err)
	}
	px := drivertest.StartProxy(t, u.Host)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	queue := unique("fault")
	d, err := Open(ctx, driver.Config{URL: px.URL(t, broker), Destination: queue, Options: o, RunID: "fault"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The driver's own connection went through the proxy too: clean up directly.
		d.Close()
		if d2, err := Open(context.Background(), driver.Config{URL: broker, Destination: queue, Options: o}); err == nil {
			rd := d2.(*rabbitDriver)
			rd.queueCreated = true
			_ = rd.Teardown(context.Background())
			d2.Close()
		}
	})
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	var got atomic.Int64
	c, err := d.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx, func(v []byte, at time.Time) {
		got.Add(1)
		if record != nil {
			record(v, at)
		}
	}); err != nil {
		t.Fatal(err)
	}
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		a, err := p.Send(ctx, driver.Message{Value: make([]byte, 64)})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 10*time.Second, func() bool { return got.Load() >= 100 })
	return px, d, c.(*consumer), p, &got
}

// TestBrokerCrash: every connection drops at once. Send fails promptly instead of blocking,
// outstanding Acks fail, and Close returns at once.
func TestBrokerCrash(t *testing.T) {
	t.Parallel()
	px, _, c, p, _ := faultSession(t)
	ctx := context.Background()
	px.Kill()

	var acks []driver.Ack
	sendErrs := 0
	for i := 0; i < 50; i++ {
		start := time.Now()
		a, err := p.Send(ctx, driver.Message{Value: make([]byte, 64)})
		if el := time.Since(start); el > time.Second {
			t.Errorf("Send blocked %v after the broker died", el)
		}
		if err != nil {
			sendErrs++
			if sendErrs == 1 {
				t.Logf("Send after the broker died: %v", err)
			}
			continue
		}
		acks = append(acks, a)
		time.Sleep(2 * time.Millisecond)
	}
	if sendErrs == 0 {
		t.Errorf("no Send failed after the broker died")
	}
	for i, a := range acks {
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := a.Wait(wctx)
		cancel()
		if err == nil {
			t.Errorf("Ack %d succeeded after the broker died", i)
		} else if i == 0 {
			t.Logf("Ack after the broker died: %v", err)
		}
	}
	// The consumer notices by itself (failed Sends can all be over within a millisecond, before
	// its reader has seen the socket close: give it up to 5 s).
	for deadline := time.Now().Add(5 * time.Second); c.Errors() == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if c.Errors() == 0 {
		t.Errorf("the consumer did not notice that its channel closed")
	}
	start := time.Now()
	c.Close()
	p.Close()
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("Close took %v after the broker died", el)
	}
	t.Logf("sends failed: %d of 50; consumer errors: %d", sendErrs, c.Errors())
}

// TestBrokerHang: the broker stops answering without closing anything. Send must not block
// for longer than the write timeout; the heartbeat or the write timeout then kills the
// connection, after which Sends and Acks fail; Close stays bounded.
func TestBrokerHang(t *testing.T) {
	t.Parallel()
	px, _, c, p, _ := faultSession(t)
	ctx := context.Background()
	px.Freeze()

	start := time.Now()
	var longest time.Duration
	var firstErr error
	var acks []driver.Ack
	for time.Since(start) < 30*time.Second {
		s := time.Now()
		a, err := p.Send(ctx, driver.Message{Value: make([]byte, 1024)})
		longest = max(longest, time.Since(s))
		if err != nil {
			firstErr = err
			break
		}
		acks = append(acks, a)
	}
	if firstErr == nil {
		t.Fatalf("Send kept succeeding for 30s against a hung broker")
	}
	t.Logf("first failed Send %v after the hang (%d sent before): %v; longest Send %v", time.Since(start).Round(time.Millisecond), len(acks), firstErr, longest)
	if longest > writeTimeout+2*time.Second {
		t.Errorf("a Send blocked %v, want at most about the write timeout %v", longest, writeTimeout)
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for i, a := range acks {
		if err := a.Wait(wctx); err == nil {
			t.Fatalf("Ack %d succeeded although the broker never answered", i)
		}
	}
	s := time.Now()
	c.Close()
	p.Close()
	if el := time.Since(s); el > 8*time.Second {
		t.Errorf("Close took %v against a hung broker", el)
	}
}

// TestBrokerRestart: the broker goes away (every connection breaks, new ones are refused) and
// comes back on the same address. While it is away Send fails at once; once it is back the
// publisher and the consumer reconnect by themselves, Sends succeed again and the consumer
// receives every message sent after the restart. In the "transient-queue-lost" case the
// (non-durable) queue the run declared is deleted during the outage, as a broker restart
// would: the consumer declares it again. Close stops the reconnect loops.
func TestBrokerRestart(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      *Options
		loseQueue bool
	}{
		{name: "classic-durable", opts: &Options{}},
		{name: "quorum", opts: &Options{QueueType: "quorum"}},
		{name: "stream", opts: &Options{QueueType: "stream"}},
		{name: "transient-queue-lost", opts: &Options{Durable: ptr(false), Persistent: ptr(false)}, loseQueue: true},
		{name: "exchange-mandatory-transient-queue-lost", opts: &Options{Durable: ptr(false), Exchange: unique("restart-x"), ExchangeType: "topic", RoutingKey: "k", Mandatory: true}, loseQueue: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testBrokerRestart(t, tc.opts, tc.loseQueue)
		})
	}
}

func testBrokerRestart(t *testing.T, o *Options, loseQueue bool) {
	const marker = 0xAB // messages of this test; faultSession's own are zeros
	var mu sync.Mutex
	seen := map[uint64]int{}
	record := func(v []byte, _ time.Time) {
		if len(v) < 9 || v[0] != marker {
			return
		}
		mu.Lock()
		seen[binary.LittleEndian.Uint64(v[1:])]++
		mu.Unlock()
	}
	received := func(from, to uint64) (n, dups int) {
		mu.Lock()
		defer mu.Unlock()
		for k, c := range seen {
			if k >= from && k < to {
				n++
				dups += c - 1
			}
		}
		return n, dups
	}
	px, d, c, p, _ := faultSessionWith(t, o, record)
	pub := p.(*publisher)
	ctx := context.Background()
	var next uint64
	send := func() (driver.Ack, error) {
		v := make([]byte, 64)
		v[0] = marker
		binary.LittleEndian.PutUint64(v[1:], next)
		next++
		return p.Send(ctx, driver.Message{Value: v})
	}

	px.Down()
	if loseQueue {
		// A broker restart loses a queue that was not durable (and a binding to it).
		rd := d.(*rabbitDriver)
		direct, err := Open(ctx, driver.Config{URL: rabbitURL(t), Destination: rd.queue, Options: o})
		if err != nil {
			t.Fatal(err)
		}
		if err := direct.(*rabbitDriver).withChannel(func(ch *amqp.Channel) error {
			_, err := ch.QueueDelete(rd.queue, false, false, false)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		direct.Close()
	}
	// 1 s of sending into the outage: Sends fail, at once.
	down := time.Now()
	sendErrs, longest := 0, time.Duration(0)
	var firstErr error
	for time.Since(down) < time.Second {
		s := time.Now()
		a, err := send()
		longest = max(longest, time.Since(s))
		if err == nil {
			wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err = a.Wait(wctx)
			cancel()
		}
		if err != nil {
			sendErrs++
			firstErr = cmp.Or(firstErr, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if sendErrs == 0 {
		t.Fatalf("no Send failed while the broker was away")
	}
	if longest > 500*time.Millisecond {
		t.Errorf("a Send blocked %v while the broker was away", longest)
	}
	t.Logf("broker away 1 s: %d of %d sends failed (longest Send %v): %v", sendErrs, next, longest, firstErr)

	// Back: Sends succeed again, and the consumer receives what is sent afterwards.
	px.Up(t)
	back := time.Now()
	firstOK := uint64(0)
	for {
		if time.Since(back) > 20*time.Second {
			t.Fatalf("no Send succeeded within 20 s of the broker coming back")
		}
		n := next
		a, err := send()
		if err == nil {
			wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err = a.Wait(wctx)
			cancel()
		}
		if err == nil {
			firstOK = n
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	resumed := time.Since(back)
	// Without the queue (lost with the restart), what the publisher sends before the consumer
	// has declared it again is unroutable: the broker confirms and drops it (it is lost, and
	// the ledger says so), unless mandatory makes its Ack fail. So the batch below waits for
	// the consumer.
	for c.Reconnects() == 0 {
		if time.Since(back) > 20*time.Second {
			t.Fatalf("the consumer did not subscribe again within 20 s of the broker coming back")
		}
		time.Sleep(10 * time.Millisecond)
	}
	const after = 500
	from := next
	var acks []driver.Ack
	for i := 0; i < after; i++ {
		a, err := send()
		if err != nil {
			t.Fatalf("Send %d after the broker came back: %v", i, err)
		}
		acks = append(acks, a)
	}
	for i, a := range acks {
		if err := a.Wait(ctx); err != nil {
			t.Fatalf("Ack %d after the broker came back: %v", i, err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		n, _ := received(from, next)
		if n == after {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the consumer received %d of the %d messages sent after the broker came back (reconnects: consumer %d)", n, after, c.Reconnects())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	n, dups := received(from, next)
	if dups > 0 {
		t.Errorf("%d of the messages sent after the restart were received twice", dups)
	}
	if first, _ := received(firstOK, firstOK+1); first != 1 && (!loseQueue || o.Mandatory) {
		t.Errorf("the first message acknowledged after the restart was not received")
	}
	t.Logf("back: first Send acknowledged after %v; %d/%d later messages received; reconnects: publisher %d, consumer %d; consumer errors %d",
		resumed.Round(time.Millisecond), n, after, pub.Reconnects(), c.Reconnects(), c.Errors())
	if pub.Reconnects() != 1 || c.Reconnects() != 1 {
		t.Errorf("reconnects: publisher %d, consumer %d; want 1 each", pub.Reconnects(), c.Reconnects())
	}

	start := time.Now()
	c.Close()
	p.Close()
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("Close took %v", el)
	}
	for name, done := range map[string]chan struct{}{"publisher": pub.done, "consumer": c.done} {
		select {
		case <-done:
		default:
			t.Errorf("the %s's goroutine still runs after Close", name)
		}
	}
	if _, err := p.Send(ctx, driver.Message{Value: make([]byte, 64)}); err == nil {
		t.Errorf("Send after Close succeeded")
	}
	// The admin connection died with the others: Teardown opens a new one and removes the queue.
	if err := d.Teardown(ctx); err != nil {
		t.Fatalf("Teardown after the restart: %v", err)
	}
	if exists, _, err := d.(*rabbitDriver).DestinationExists(ctx); err != nil || exists {
		t.Errorf("after Teardown: queue exists %v (%v)", exists, err)
	}
}

// TestCloseWhileReconnecting: with the broker away for good, Close of a publisher and a
// consumer that are retrying returns at once and their goroutines end.
func TestCloseWhileReconnecting(t *testing.T) {
	t.Parallel()
	px, _, c, p, _ := faultSession(t)
	pub := p.(*publisher)
	px.Down()
	time.Sleep(3 * time.Second) // several attempts, backoff at its 2 s ceiling
	start := time.Now()
	c.Close()
	p.Close()
	if el := time.Since(start); el > time.Second {
		t.Errorf("Close took %v while reconnecting", el)
	}
	for name, done := range map[string]chan struct{}{"publisher": pub.done, "consumer": c.done} {
		select {
		case <-done:
		case <-time.After(time.Second):
			t.Errorf("the %s's reconnect loop still runs after Close", name)
		}
	}
	// The broker comes back after Close: nothing reconnects.
	px.Up(t)
	time.Sleep(2500 * time.Millisecond)
	if pub.Reconnects() != 0 || c.Reconnects() != 0 {
		t.Errorf("reconnected after Close: publisher %d, consumer %d", pub.Reconnects(), c.Reconnects())
	}
}
