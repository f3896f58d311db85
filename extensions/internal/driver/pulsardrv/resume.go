package pulsardrv

import (
	"context"
	"strings"
	"time"

	"github.com/apache/pulsar-client-go/pulsar"
)

// causeWait bounds the wait for the client library to say why it closed a consumer: it does
// so just after Receive has seen the close.
const causeWait = time.Second

// closeWatch is told by the client library why it closed a consumer (a
// ConsumerCloseInterceptor): nil when we closed it, the broker's answer when the library
// gave up reconnecting.
type closeWatch struct {
	closed chan struct{}
	cause  error // written before closed is closed
}

var _ pulsar.ConsumerCloseInterceptor = (*closeWatch)(nil)

func newCloseWatch() *closeWatch { return &closeWatch{closed: make(chan struct{})} }

func (*closeWatch) BeforeConsume(pulsar.ConsumerMessage)                   {}
func (*closeWatch) OnAcknowledge(pulsar.Consumer, pulsar.MessageID)        {}
func (*closeWatch) OnNegativeAcksSend(pulsar.Consumer, []pulsar.MessageID) {}

// OnConsumerClose is called once per consumer.
func (w *closeWatch) OnConsumerClose(_ pulsar.Consumer, err error) {
	w.cause = err
	close(w.closed)
}

// wait returns why the consumer was closed, nil when that is not known within d.
func (w *closeWatch) wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-w.closed:
		return w.cause
	case <-t.C:
	case <-ctx.Done():
	}
	return nil
}

// goneMarkers are the broker's errors that say the run's topic or subscription no longer
// exists (deleted under the run): subscribing again would create it anew.
var goneMarkers = []string{"TopicNotFound", "TopicTerminatedError", "SubscriptionNotFound"}

func gone(err error) bool {
	if err == nil {
		return false
	}
	for _, m := range goneMarkers {
		if strings.Contains(err.Error(), m) {
			return true
		}
	}
	return false
}

// resume replaces a consumer the client library closed by itself, and reports whether the
// receive loop goes on. The library gives up reconnecting, and closes the consumer, when the
// broker answers a SUBSCRIBE with an error it takes for final (v0.21: ConsumerBusy,
// NotAllowedError, AuthorizationError among others): the loop would end and nothing be
// received for the rest of the run. So it subscribes again, at the reconnect back-off, until it
// succeeds, the topic or subscription is gone, or the consumer is closed. Unacknowledged
// messages come again (duplicates in the ledger, not losses).
func (c *consumer) resume(ctx context.Context) bool {
	c.errs.Add(1)
	if gone(c.watch.wait(ctx, causeWait)) {
		return false
	}
	c.cons.Close() // closed already: returns at once
	bo := reconnectBackoff()
	for {
		t := time.NewTimer(bo.Next())
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
		cons, w, err := c.subscribe()
		if err == nil {
			c.cons, c.watch = cons, w
			return true
		}
		c.errs.Add(1)
		if gone(err) {
			return false
		}
	}
}
