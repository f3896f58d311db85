package amqp10drv_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/amqp10drv"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
	"github.com/mqbench/xk6-mqbench/internal/redact"
)

// artemisDefaultURL is the ActiveMQ Artemis of scripts/brokers/artemis.sh: its AMQP acceptor
// and its test user (test credentials only).
const artemisDefaultURL = "amqp://mqbench:mqbench-test@127.0.0.1:5673"

// artemisURL is drivertest.BrokerURL for Artemis (which is the amqp10 driver with address
// plain, so it has its own variable): MQBENCH_ARTEMIS_URL or artemisDefaultURL, probed once;
// skipped when it does not answer, a failure under MQBENCH_REQUIRE_BROKERS=1.
func artemisURL(t *testing.T) string {
	t.Helper()
	u := getenv("MQBENCH_ARTEMIS_URL")
	if u == "" {
		u = artemisDefaultURL
	}
	spec, err := driver.Lookup("amqp10")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := spec.Open(ctx, driver.Config{URL: u, Destination: "mqbench.probe", Options: plain(nil)})
	if err != nil {
		msg := fmt.Sprintf("artemis at %s is not usable (%v); start one (scripts/brokers/start.sh artemis) or set MQBENCH_ARTEMIS_URL",
			redact.URL(u), err)
		if os.Getenv("MQBENCH_REQUIRE_BROKERS") == "1" {
			t.Fatal(msg + "; MQBENCH_REQUIRE_BROKERS=1 makes this a failure")
		}
		t.Skip(msg)
	}
	_ = d.Close()
	return u
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
func TestArtemisSendBeforeConsume(t *testing.T) {
	u := artemisURL(t)
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
	const secret = "not-the-password-7f3a"
	user := pu.User.Username()
	pu.User = url.UserPassword(user, secret)
	spec, _ := driver.Lookup("amqp10")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := spec.Open(ctx, driver.Config{URL: pu.String(), Destination: "mqbench.amqp10.auth", Options: plain(nil)})
	if err == nil {
		d.Close()
		t.Fatal("Open with a wrong password succeeded")
	}
	t.Logf("error: %v", err)
	var ue *driver.UnreachableError
	if errors.As(err, &ue) {
		t.Errorf("wrong password reported as unreachable: %v", err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error leaks the password: %v", err)
	}
	if !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), fmt.Sprintf("%q", user)) {
		t.Errorf("error %q does not say the credentials of %s were refused", err, user)
	}
}
