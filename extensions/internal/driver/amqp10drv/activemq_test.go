package amqp10drv_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/amqp10drv"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// activemqDefaultURL is the ActiveMQ Classic 6.1.7 of scripts/brokers/activemq.sh: its AMQP
// connector and its test user (test credentials only).
const activemqDefaultURL = "amqp://mqbench:mqbench-test@127.0.0.1:5674"

// activemqURL is drivertest.BrokerURL for ActiveMQ Classic (the amqp10 driver with address
// plain): MQBENCH_ACTIVEMQ_URL or activemqDefaultURL, probed once; skipped when it does not
// answer, a failure under MQBENCH_REQUIRE_BROKERS=1. The suites run on it send 1000 messages,
// not 2000: Classic drained 2000 unpaced ones in 1.4-6.0 s (a freshly started broker's cold
// JIT on a 2-core machine whose host took 16-45 % of its CPU), and the slowest message's
// send→receive time is then the drain's, not a message held back (5.03 s failed make test).
func activemqURL(t *testing.T) string {
	t.Helper()
	drivertest.UseMessages(t, 1000)
	return drivertest.Probe(t, drivertest.Target{Driver: "amqp10", Env: "MQBENCH_ACTIVEMQ_URL",
		DefaultURL: activemqDefaultURL, Start: "activemq", Options: plain(nil)})
}

func TestActiveMQConformanceUnsettled(t *testing.T) {
	u := activemqURL(t)
	drivertest.Run(t, "amqp10", driver.Config{URL: u, Destination: dest(t), Options: plain(nil)})
}

func TestActiveMQConformanceSettled(t *testing.T) {
	u := activemqURL(t)
	drivertest.Run(t, "amqp10", driver.Config{URL: u, Destination: dest(t),
		Options: plain(&amqp10drv.Options{Settle: "settled"})})
}

// Two consumers share the queue, each message reaching one of them. Classic makes a bare
// link address a queue (ActiveMQDestination's default type; only a topic:// prefix gives a
// topic) and reads no "queue" capability on a named terminus, so address plain is anycast
// there without a queue:// prefix; a topic would give each consumer every message, which
// this test reports as duplicates.
func TestActiveMQConformanceShared(t *testing.T) {
	u := activemqURL(t)
	drivertest.RunShared(t, "amqp10", driver.Config{URL: u, Destination: dest(t),
		Options: plain(&amqp10drv.Options{Credit: 16})})
}

// Accept auto on Classic: pre-settled deliveries, every message once.
func TestActiveMQConformanceAutoAccept(t *testing.T) {
	u := activemqURL(t)
	drivertest.Run(t, "amqp10", driver.Config{URL: u, Destination: dest(t),
		Options: plain(&amqp10drv.Options{Accept: "auto"})})
}

// Multicast on Classic: the kind is in the address, not in the capabilities. Classic reads
// neither "queue" nor "topic" on a named terminus, so routing multicast alone still attaches
// a queue (the two consumers share the messages); a topic:// prefix on the destination makes
// a topic, every consumer getting every message.
func TestActiveMQMulticast(t *testing.T) {
	u := activemqURL(t)
	const n = 20
	t.Run("address-activemq-multicast", func(t *testing.T) {
		o := &amqp10drv.Options{Address: "activemq", Routing: "multicast", Credit: 4}
		if got := consumeTwice(t, u, dest(t), o, n); got != [2]int{n, n} {
			t.Errorf("consumers got %v of %d messages, want all of them each (topic://)", got, n)
		}
	})
	t.Run("address-activemq-anycast", func(t *testing.T) {
		o := &amqp10drv.Options{Address: "activemq", Credit: 4}
		if got := consumeTwice(t, u, dest(t), o, n); got[0]+got[1] != n {
			t.Errorf("consumers got %v of %d messages, want them shared (queue://)", got, n)
		}
	})
	// Address plain: Classic ignores the "topic" capability, a bare name stays a queue.
	t.Run("address-plain-multicast-is-a-queue", func(t *testing.T) {
		if got := consumeTwice(t, u, dest(t), plain(&amqp10drv.Options{Routing: "multicast", Credit: 4}), n); got[0]+got[1] != n {
			t.Errorf("consumers got %v of %d messages, want them shared (a queue)", got, n)
		}
	})
}

// consumeTwice sends n messages with options o while two consumers are attached and
// returns how many each received (waiting until none arrives for a second).
func consumeTwice(t *testing.T, u, destination string, o *amqp10drv.Options, n int) [2]int {
	t.Helper()
	spec, _ := driver.Lookup("amqp10")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o.Defaults()
	d, err := spec.Open(ctx, driver.Config{URL: u, Destination: destination, RunID: "t", Options: o})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Setup(ctx); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	got := make(chan int, 2*n)
	for i := 0; i < 2; i++ {
		c, err := d.NewConsumer(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Start(ctx, func([]byte, time.Time) { got <- i }); err != nil {
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
	var per [2]int
	for {
		select {
		case c := <-got:
			per[c]++
		case <-time.After(time.Second):
			return per
		}
	}
}

// Messages sent before any consumer attached wait in the queue (persistent, KahaDB), and
// plain never asks a management API, so DestinationExists is not applicable.
func TestActiveMQSendBeforeConsume(t *testing.T) { sendBeforeConsume(t, activemqURL(t)) }

// Classic answers a wrong password with a failed SASL outcome (code 1), which the driver
// reports as refused, naming the user.
func TestActiveMQWrongPassword(t *testing.T) {
	u := activemqURL(t)
	pu, _ := url.Parse(u)
	wrongPassword(t, u, pu.User.Username(), plain(nil))
}

// The scripts' broker requires a login: SASL ANONYMOUS (a url without user) is refused.
func TestActiveMQAnonymousRefused(t *testing.T) {
	u := activemqURL(t)
	pu, _ := url.Parse(u)
	pu.User = nil
	spec, _ := driver.Lookup("amqp10")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := spec.Open(ctx, driver.Config{URL: pu.String(), Destination: "mqbench.amqp10.auth", Options: plain(nil)})
	if err == nil {
		d.Close()
		t.Fatal("anonymous Open succeeded: the broker must require a login")
	}
	t.Logf("error: %v", err)
	var ue *driver.UnreachableError
	if errors.As(err, &ue) || !strings.Contains(err.Error(), "refused") {
		t.Errorf("anonymous login not reported as refused: %v", err)
	}
}

// A run spread over several destinations opens a driver per destination, side by side, with
// the run's id (and a distributed run's runners share it): Classic refuses a second
// connection whose container id is already connected ("Client: … already connected"), so each
// connection's container id must be its own, the publishers' and consumers' too.
func TestActiveMQOneRunManyDrivers(t *testing.T) {
	u := activemqURL(t)
	spec, _ := driver.Lookup("amqp10")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range 3 {
		o := plain(nil)
		o.Defaults()
		d, err := spec.Open(ctx, driver.Config{URL: u, Destination: dest(t), RunID: "one-run", Options: o})
		if err != nil {
			t.Fatalf("driver %d of the run: %v", i, err)
		}
		defer d.Close()
		if err := d.Setup(ctx); err != nil {
			t.Fatalf("driver %d of the run: Setup: %v", i, err)
		}
		p, err := d.NewPublisher(ctx, 0)
		if err != nil {
			t.Fatalf("driver %d of the run: publisher 0: %v", i, err)
		}
		defer p.Close()
		c, err := d.NewConsumer(ctx, 0)
		if err != nil {
			t.Fatalf("driver %d of the run: consumer 0: %v", i, err)
		}
		defer c.Close()
		if err := c.Start(ctx, func([]byte, time.Time) {}); err != nil {
			t.Fatalf("driver %d of the run: consumer 0: %v", i, err)
		}
	}
}
