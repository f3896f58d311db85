package rabbitdrv

import (
	"context"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// fault is a fault test on a quorum queue (confirms on) or, with o, other options, on a queue
// of its own. The driver talks to the broker through a proxy, so cleanup deletes the queue
// over a connection of its own.
func fault(t *testing.T, o *Options) drivertest.Restart {
	t.Helper()
	if o == nil {
		o = &Options{QueueType: "quorum"}
	}
	broker, queue := rabbitURL(t), unique("fault")
	t.Cleanup(func() {
		if d, err := Open(context.Background(), driver.Config{URL: broker, Destination: queue, Options: o}); err == nil {
			rd := d.(*rabbitDriver)
			rd.queueCreated = true
			_ = rd.Teardown(context.Background())
			d.Close()
		}
	})
	return drivertest.Restart{Driver: "rabbitmq", Config: driver.Config{URL: broker, Destination: queue, Options: o, RunID: "fault"}}
}

// faultSession opens fault(t, nil)'s session: 100 messages have gone through the proxy.
func faultSession(t *testing.T) (*drivertest.Proxy, *consumer, driver.Publisher) {
	t.Helper()
	s := drivertest.OpenSession(t, fault(t, nil))
	return s.Proxy, s.C.(*consumer), s.P
}

// TestBrokerCrash: every connection drops at once. Send fails promptly instead of blocking,
// outstanding Acks fail, and Close returns at once.
func TestBrokerCrash(t *testing.T) {
	t.Parallel()
	px, c, p := faultSession(t)
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
	px, c, p := faultSession(t)
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
			r := fault(t, tc.opts)
			r.Away = drivertest.Away{For: time.Second, AckEvery: 1, SendWithin: 500 * time.Millisecond, SomeFail: true}
			if tc.loseQueue {
				r.Away.OnDown = loseQueue
			}
			// Without the queue (lost with the restart), what is sent before the consumer has
			// declared it again is unroutable: the broker confirms and drops it (the ledger
			// counts it lost), unless mandatory makes its Ack fail.
			r.Back = drivertest.Back{Resume: drivertest.ExactlyOnce, FirstReceived: !tc.loseQueue || tc.opts.Mandatory}
			r.Closing = drivertest.Closing{Within: 3 * time.Second, SendFails: true}
			r.Finally = stoppedAndTornDown
			drivertest.RunRestart(t, r)
		})
	}
}

// loseQueue deletes the run's queue (and so its binding) behind the driver's back, as a
// broker restart does to a queue that was not durable.
func loseQueue(t *testing.T, s *drivertest.Session) {
	rd := s.D.(*rabbitDriver)
	direct, err := Open(s.Ctx, driver.Config{URL: s.URL, Destination: rd.queue, Options: rd.opts})
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	if err := direct.(*rabbitDriver).withChannel(func(ch *amqp.Channel) error {
		_, err := ch.QueueDelete(rd.queue, false, false, false)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// stoppedAndTornDown: Close ended the publisher's and the consumer's goroutines, and Teardown
// (its admin connection died with the others) opens a new connection and removes the queue.
func stoppedAndTornDown(t *testing.T, s *drivertest.Session) {
	for name, done := range map[string]chan struct{}{"publisher": s.P.(*publisher).done, "consumer": s.C.(*consumer).done} {
		select {
		case <-done:
		default:
			t.Errorf("the %s's goroutine still runs after Close", name)
		}
	}
	if err := s.D.Teardown(s.Ctx); err != nil {
		t.Fatalf("Teardown after the restart: %v", err)
	}
	if exists, _, err := s.D.(*rabbitDriver).DestinationExists(s.Ctx); err != nil || exists {
		t.Errorf("after Teardown: queue exists %v (%v)", exists, err)
	}
}

// TestCloseWhileReconnecting: with the broker away for good, Close of a publisher and a
// consumer that are retrying returns at once and their goroutines end.
func TestCloseWhileReconnecting(t *testing.T) {
	t.Parallel()
	px, c, p := faultSession(t)
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
