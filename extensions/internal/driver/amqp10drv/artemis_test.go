package amqp10drv_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/amqp10drv"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// artemisDefaultURL is the ActiveMQ Artemis of scripts/brokers/artemis.sh: its AMQP acceptor
// and its test user (test credentials only).
const artemisDefaultURL = "amqp://mqbench:mqbench-test@127.0.0.1:5673"

// artemisURL is drivertest.BrokerURL for Artemis (which is the amqp10 driver with address
// plain, so it has its own variable): MQBENCH_ARTEMIS_URL or artemisDefaultURL, probed once;
// skipped when it does not answer, a failure under MQBENCH_REQUIRE_BROKERS=1.
func artemisURL(t *testing.T) string {
	t.Helper()
	return drivertest.Probe(t, drivertest.Target{Driver: "amqp10", Env: "MQBENCH_ARTEMIS_URL",
		DefaultURL: artemisDefaultURL, Start: "artemis", Options: plain(nil)})
}

// plain returns o (or empty options) with address plain, defaults filled.
func plain(o *amqp10drv.Options) *amqp10drv.Options {
	if o == nil {
		o = &amqp10drv.Options{}
	}
	o.Address = amqp10drv.AddressPlain
	o.Defaults()
	return o
}

func TestArtemisConformanceUnsettled(t *testing.T) {
	u := artemisURL(t)
	drivertest.Run(t, "amqp10", driver.Config{URL: u, Destination: dest(t), Options: plain(nil)})
}

// send_queue: transfers written by the publisher's goroutine, Acks at the dispositions.
func TestArtemisConformanceSendQueue(t *testing.T) {
	u := artemisURL(t)
	drivertest.Run(t, "amqp10", driver.Config{URL: u, Destination: dest(t),
		Options: plain(&amqp10drv.Options{SendQueue: 4096})})
}

func TestArtemisConformanceSharedSendQueue(t *testing.T) {
	u := artemisURL(t)
	drivertest.RunShared(t, "amqp10", driver.Config{URL: u, Destination: dest(t),
		Options: plain(&amqp10drv.Options{Credit: 16, SendQueue: 64})})
}

func TestArtemisConformanceSettled(t *testing.T) {
	u := artemisURL(t)
	drivertest.Run(t, "amqp10", driver.Config{URL: u, Destination: dest(t),
		Options: plain(&amqp10drv.Options{Settle: "settled"})})
}

// Two consumers share the queue: only with the "queue" capability (anycast) on Artemis; a
// multicast address would give each consumer every message.
func TestArtemisConformanceShared(t *testing.T) {
	u := artemisURL(t)
	drivertest.RunShared(t, "amqp10", driver.Config{URL: u, Destination: dest(t),
		Options: plain(&amqp10drv.Options{Credit: 16})})
}

// Messages sent before any consumer attached wait in the queue Setup created (anycast), and
// plain never asks a management API, so DestinationExists is not applicable.
func TestArtemisSendBeforeConsume(t *testing.T) { sendBeforeConsume(t, artemisURL(t)) }

// sendBeforeConsume: 20 messages, each settled, sent with address plain before any consumer
// attached, are then received in order; DestinationExists is not applicable; Teardown works.
func sendBeforeConsume(t *testing.T, u string) {
	t.Helper()
	spec, _ := driver.Lookup("amqp10")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := spec.Open(ctx, driver.Config{URL: u, Destination: dest(t), RunID: "t", Options: plain(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Setup(ctx); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	if _, applicable, _ := d.(drivertest.DestinationChecker).DestinationExists(ctx); applicable {
		t.Error("DestinationExists applicable with address plain")
	}
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	for i := 0; i < n; i++ {
		a, err := p.Send(ctx, driver.Message{Value: []byte{byte(i)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Wait(ctx); err != nil {
			t.Fatalf("ack %d: %v", i, err)
		}
	}
	_ = p.Close()
	c, err := d.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := make(chan byte, n)
	if err := c.Start(ctx, func(v []byte, _ time.Time) { got <- v[0] }); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		select {
		case v := <-got:
			if int(v) != i {
				t.Fatalf("message %d: got %d", i, v)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("received %d of %d messages sent before the consumer attached", i, n)
		}
	}
	_ = c.Close()
	if err := d.Teardown(ctx); err != nil {
		t.Errorf("Teardown: %v", err)
	}
}

func TestArtemisWrongPassword(t *testing.T) {
	u := artemisURL(t)
	pu, _ := url.Parse(u)
	wrongPassword(t, u, pu.User.Username(), plain(nil))
}

// Accept auto on Artemis: pre-settled deliveries, every message once.
func TestArtemisConformanceAutoAccept(t *testing.T) {
	u := artemisURL(t)
	drivertest.Run(t, "amqp10", driver.Config{URL: u, Destination: dest(t),
		Options: plain(&amqp10drv.Options{Accept: "auto"})})
}

// Routing multicast: the "topic" capability makes a multicast address, and every consumer
// receives every message (where anycast shares them: TestArtemisConformanceShared).
func TestArtemisMulticast(t *testing.T) {
	u := artemisURL(t)
	spec, _ := driver.Lookup("amqp10")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := spec.Open(ctx, driver.Config{URL: u, Destination: dest(t), RunID: "t",
		Options: plain(&amqp10drv.Options{Routing: "multicast"})})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Setup(ctx); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	const n, consumers = 50, 2
	got := make([]chan byte, consumers)
	for i := range got {
		got[i] = make(chan byte, n)
		c, err := d.NewConsumer(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ch := got[i]
		if err := c.Start(ctx, func(v []byte, _ time.Time) { ch <- v[0] }); err != nil {
			t.Fatal(err)
		}
	}
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := 0; i < n; i++ {
		a, err := p.Send(ctx, driver.Message{Value: []byte{byte(i)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Wait(ctx); err != nil {
			t.Fatalf("ack %d: %v", i, err)
		}
	}
	for c, ch := range got {
		for i := 0; i < n; i++ {
			select {
			case v := <-ch:
				if int(v) != i {
					t.Fatalf("consumer %d, message %d: got %d", c, i, v)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("consumer %d received %d of %d messages", c, i, n)
			}
		}
	}
}

// One publisher and one consumer connection as fast as the publisher goes (durable,
// unsettled): go test -bench Artemis -run '^$' ./internal/driver/amqp10drv/
func BenchmarkArtemisPublishConsume1KB(b *testing.B) {
	u := drivertest.Probe(b, drivertest.Target{Driver: "amqp10", Env: "MQBENCH_ARTEMIS_URL",
		DefaultURL: artemisDefaultURL, Start: "artemis", Options: plain(nil)})
	drivertest.Benchmark(b, "amqp10", driver.Config{URL: u, Destination: "mqbench.amqp10.bench", Options: plain(nil)}, 1024)
}
