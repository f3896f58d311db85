package amqp10drv_test

import (
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/amqp10drv"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

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

// fault is a fault test on the broker at url broker, through a proxy, on a queue of its own
// (unsettled, durable messages).
func fault(t *testing.T, broker string, o *amqp10drv.Options) drivertest.Restart {
	t.Helper()
	if o.Address == amqp10drv.AddressRabbitV1 || o.Address == "" {
		o.ManagementURL = management(t, broker) // Teardown deletes the queue the run made
	}
	return drivertest.Restart{Driver: "amqp10", Config: driver.Config{URL: broker, Destination: dest(t), RunID: "fault", Options: o}}
}

// TestBrokerRestart: the broker goes away (every connection breaks, new ones are refused)
// for 1 s and comes back on the same address. While it is away Send fails at once and
// outstanding Acks fail; once it is back the publisher and the consumer reconnect by
// themselves, and every message sent afterwards arrives exactly once. Close then stops
// everything promptly.
func TestBrokerRestart(t *testing.T) {
	for _, b := range faultBrokers() {
		t.Run(b.name, func(t *testing.T) {
			r := fault(t, b.url(t), b.opts())
			r.Away = drivertest.Away{For: time.Second, AckEvery: 1, SettleWithin: 500 * time.Millisecond, SomeFail: true}
			r.Back = drivertest.Back{Resume: drivertest.ExactlyOnce}
			r.Closing = drivertest.Closing{Within: 3 * time.Second, SendFails: true}
			drivertest.RunRestart(t, r)
		})
	}
}

// TestCloseWhileReconnecting: with the broker away for good, Close of a publisher and a
// consumer that keep retrying returns promptly.
func TestCloseWhileReconnecting(t *testing.T) {
	for _, b := range faultBrokers() {
		t.Run(b.name, func(t *testing.T) {
			s := drivertest.OpenSession(t, fault(t, b.url(t), b.opts()))
			s.Proxy.Kill()
			time.Sleep(3 * time.Second) // several attempts, backoff at its 2 s ceiling
			start := time.Now()
			_ = s.C.Close()
			_ = s.P.Close()
			if el := time.Since(start); el > 3*time.Second {
				t.Errorf("Close took %v while reconnecting", el)
			}
		})
	}
}
