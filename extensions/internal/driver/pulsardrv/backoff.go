package pulsardrv

import (
	"errors"
	"fmt"
	"time"

	"github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsar/backoff"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// maxReconnectWait caps the wait between reconnection attempts. The client's own policy
// doubles up to 60 s, so a producer could stay away for a minute after a broker that was
// down for 20 s is back: a benchmark would then measure the back-off, not the broker.
const maxReconnectWait = 2 * time.Second

// capped is a back-off from 100 ms doubling to maxReconnectWait.
type capped struct{ next time.Duration }

var _ backoff.Policy = (*capped)(nil)

func (b *capped) Next() time.Duration {
	b.next = min(max(2*b.next, 100*time.Millisecond), maxReconnectWait)
	return b.next
}

func (b *capped) IsMaxBackoffReached() bool { return b.next >= maxReconnectWait }
func (b *capped) Reset()                    { b.next = 0 }

func reconnectBackoff() backoff.Policy { return &capped{} }

// connectError classifies a failure to create a producer or consumer: the broker not
// answering (connection refused or reset, timed out) is an UnreachableError; anything the
// broker said (no such namespace, an exclusive subscription taken) stays an error.
func (d *pulsarDriver) connectError(what string, err error) error {
	var pe *pulsar.Error
	if driver.IsUnreachable(err) || (errors.As(err, &pe) && pe.Result() == pulsar.ConnectError) {
		return &driver.UnreachableError{Broker: "pulsar", Address: d.addr, Err: fmt.Errorf("%s: %w", what, err)}
	}
	return fmt.Errorf("pulsar: %s: %w", what, err)
}
