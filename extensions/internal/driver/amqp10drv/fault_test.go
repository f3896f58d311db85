package amqp10drv_test

import (
	"context"
	"encoding/binary"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/amqp10drv"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

type reconnector interface{ Reconnects() int64 }

// faultBrokers are the brokers the fault tests run against, each behind its own proxy.
func faultBrokers() []struct {
	name string
	url  func(*testing.T) string
	opts func() *amqp10drv.Options
} {
	return []struct {
		name string
		url  func(*testing.T) string
		opts func() *amqp10drv.Options
	}{
		{"rabbitmq", func(t *testing.T) string { return drivertest.BrokerURL(t, "amqp10") },
			func() *amqp10drv.Options { return &amqp10drv.Options{} }},
		{"artemis", artemisURL, func() *amqp10drv.Options { return plain(nil) }},
		{"activemq", activemqURL, func() *amqp10drv.Options {
			o := &amqp10drv.Options{Address: amqp10drv.AddressActiveMQ}
			o.Defaults()
			return o
		}},
	}
}

// faultSession is a driver opened through a proxy, with one consumer and one publisher
// (unsettled, durable) that have moved 100 messages. record receives every delivery.
type faultSession struct {
	px   *drivertest.Proxy
	d    driver.Driver
	c    driver.Consumer
	p    driver.Publisher
	mu   sync.Mutex
	seen map[uint64]int // marked messages received, by sequence number
	next uint64
}

const marker = 0xAB

func newFaultSession(t *testing.T, broker string, o *amqp10drv.Options) *faultSession {
	t.Helper()
	u, err := url.Parse(broker)
	if err != nil {
		t.Fatal(err)
	}
	f := &faultSession{px: drivertest.StartProxy(t, u.Host), seen: map[uint64]int{}}
	if o.Address == amqp10drv.AddressRabbitV1 || o.Address == "" {
		o.ManagementURL = management(t, broker) // Teardown deletes the queue the run made
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	spec, _ := driver.Lookup("amqp10")
	f.d, err = spec.Open(ctx, driver.Config{URL: f.px.URL(t, broker), Destination: dest(t), RunID: "fault", Options: o})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = f.c.Close()
		_ = f.p.Close()
		_ = f.d.Teardown(context.Background())
		_ = f.d.Close()
	})
	if err := f.d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	if f.c, err = f.d.NewConsumer(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Start(ctx, f.record); err != nil {
		t.Fatal(err)
	}
	if f.p, err = f.d.NewPublisher(ctx, 0); err != nil {
		t.Fatal(err)
	}
	from := f.next
	for i := 0; i < 100; i++ {
		if err := f.sendWait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	f.waitReceived(t, from, f.next, 10*time.Second)
	return f
}

func (f *faultSession) record(v []byte, _ time.Time) {
	if len(v) < 9 || v[0] != marker {
		return
	}
	f.mu.Lock()
	f.seen[binary.LittleEndian.Uint64(v[1:])]++
	f.mu.Unlock()
}

// send sends the next marked message.
func (f *faultSession) send(ctx context.Context) (driver.Ack, error) {
	v := make([]byte, 64)
	v[0] = marker
	binary.LittleEndian.PutUint64(v[1:], f.next)
	f.next++
	return f.p.Send(ctx, driver.Message{Value: v})
}

// sendWait sends the next message and waits (≤ 5 s) for the broker's disposition.
func (f *faultSession) sendWait(ctx context.Context) error {
	a, err := f.send(ctx)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return a.Wait(wctx)
}

// received counts the distinct messages from..to-1 received, and the extra copies.
func (f *faultSession) received(from, to uint64) (n, dups int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, c := range f.seen {
		if k >= from && k < to {
			n++
			dups += c - 1
		}
	}
	return n, dups
}

func (f *faultSession) waitReceived(t *testing.T, from, to uint64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		n, _ := f.received(from, to)
		if n == int(to-from) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("received %d of the %d messages %d..%d within %v (consumer reconnects %d)",
				n, to-from, from, to-1, within, f.c.(reconnector).Reconnects())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBrokerRestart: the broker goes away (every connection breaks, new ones are refused)
// for 1 s and comes back on the same address. While it is away Send fails at once and
// outstanding Acks fail; once it is back the publisher and the consumer reconnect by
// themselves, and every message sent afterwards arrives exactly once. Close then stops
// everything promptly.
func TestBrokerRestart(t *testing.T) {
	for _, b := range faultBrokers() {
		t.Run(b.name, func(t *testing.T) {
			f := newFaultSession(t, b.url(t), b.opts())
			ctx := context.Background()
			f.px.Down()
			down := time.Now()
			fails, longest := 0, time.Duration(0)
			var firstErr error
			for time.Since(down) < time.Second {
				s := time.Now()
				err := f.sendWait(ctx)
				longest = max(longest, time.Since(s))
				if err != nil {
					fails++
					if firstErr == nil {
						firstErr = err
					}
				}
				time.Sleep(2 * time.Millisecond)
			}
			if fails == 0 {
				t.Fatal("no Send failed while the broker was away")
			}
			if longest > 500*time.Millisecond {
				t.Errorf("a Send blocked %v while the broker was away", longest)
			}
			t.Logf("broker away 1 s: %d sends failed (longest %v): %v", fails, longest, firstErr)

			f.px.Up(t)
			back := time.Now()
			for f.sendWait(ctx) != nil {
				if time.Since(back) > 20*time.Second {
					t.Fatal("no Send succeeded within 20 s of the broker coming back")
				}
				time.Sleep(10 * time.Millisecond)
			}
			resumed := time.Since(back)
			for f.c.(reconnector).Reconnects() == 0 {
				if time.Since(back) > 20*time.Second {
					t.Fatal("the consumer did not attach again within 20 s of the broker coming back")
				}
				time.Sleep(10 * time.Millisecond)
			}
			const after = 500
			from := f.next
			acks := make([]driver.Ack, 0, after)
			for i := 0; i < after; i++ {
				a, err := f.send(ctx)
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
			f.waitReceived(t, from, f.next, 20*time.Second)
			time.Sleep(100 * time.Millisecond)
			if _, dups := f.received(from, f.next); dups > 0 {
				t.Errorf("%d of the messages sent after the restart arrived twice", dups)
			}
			pr, cr := f.p.(reconnector).Reconnects(), f.c.(reconnector).Reconnects()
			t.Logf("back: first Send settled after %v; %d later messages all received; reconnects: publisher %d, consumer %d",
				resumed.Round(time.Millisecond), after, pr, cr)
			if pr != 1 || cr != 1 {
				t.Errorf("reconnects: publisher %d, consumer %d; want 1 each", pr, cr)
			}
			start := time.Now()
			_ = f.c.Close()
			mid := time.Now()
			_ = f.p.Close()
			if el := time.Since(start); el > 3*time.Second {
				t.Errorf("Close took %v (consumer %v)", el, mid.Sub(start))
			}
			if _, err := f.p.Send(ctx, driver.Message{Value: []byte{1}}); err == nil {
				t.Error("Send after Close succeeded")
			}
		})
	}
}

// TestCloseWhileReconnecting: with the broker away for good, Close of a publisher and a
// consumer that keep retrying returns promptly.
func TestCloseWhileReconnecting(t *testing.T) {
	for _, b := range faultBrokers() {
		t.Run(b.name, func(t *testing.T) {
			f := newFaultSession(t, b.url(t), b.opts())
			f.px.Kill()
			time.Sleep(3 * time.Second) // several attempts, backoff at its 2 s ceiling
			start := time.Now()
			_ = f.c.Close()
			_ = f.p.Close()
			if el := time.Since(start); el > 3*time.Second {
				t.Errorf("Close took %v while reconnecting", el)
			}
		})
	}
}
