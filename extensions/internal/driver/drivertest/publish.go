package drivertest

import (
	"context"
	"fmt"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// OpenPublisher opens a driver with open, sets its destination up and makes publisher 0, for
// a driver's own tests of its publish path (batching); the publisher's Close, Teardown and
// the driver's Close run at the end of the test, in that order.
func OpenPublisher(t *testing.T, open func(context.Context, driver.Config) (driver.Driver, error), cfg driver.Config) (driver.Driver, driver.Publisher) {
	t.Helper()
	ctx := context.Background()
	d, err := open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Teardown(ctx) })
	pub, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pub.Close() })
	return d, pub
}

// SendNumbered sends n messages m0000, m0001, … (with key(i) as key, when key is not nil)
// without pause, then waits for every acknowledgement.
func SendNumbered(ctx context.Context, t *testing.T, pub driver.Publisher, n int, key func(i int) []byte) {
	t.Helper()
	acks := make([]driver.Ack, n)
	for i := range n {
		m := driver.Message{Value: []byte(fmt.Sprintf("m%04d", i))}
		if key != nil {
			m.Key = key(i)
		}
		var err error
		if acks[i], err = pub.Send(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for i, a := range acks {
		if err := a.Wait(ctx); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
}
