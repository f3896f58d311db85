package natsdrv

import (
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// How JetStream receivers settle what they receive (options ack, ack_wait, ack_batch,
// ack_interval). A JetStream consumer that promises delivery is used with acknowledgements:
// the server keeps every delivered message until the receiver acknowledges it and sends it
// again after AckWait otherwise, so a delivery lost on the way (a stream leader change, a
// dropped connection) comes back instead of being missing from the ledger.
const (
	// defaultAck: each message acknowledged on its own (see the option's comment for why not
	// batch by default: a batched ack also settles other receivers' unrecorded messages).
	defaultAck = "explicit"
	// defaultAckWait is JetStream's own default, written out so the reference shows it.
	defaultAckWait     = 30 * time.Second
	defaultAckBatch    = 100
	defaultAckInterval = 10 * time.Millisecond

	minAckWait     = 100 * time.Millisecond
	maxAckWait     = time.Hour
	maxAckBatch    = 10000
	minAckInterval = time.Millisecond
	maxAckInterval = 10 * time.Second
)

// validateAck checks the ack keys in mode jetstream (Defaults has run).
func (o *Options) validateAck() []driver.FieldError {
	var errs []driver.FieldError
	bad := func(field, msg string) { errs = append(errs, driver.FieldError{Field: field, Msg: msg}) }
	switch o.Ack {
	case "explicit", "batch":
		if o.AckWait < minAckWait || o.AckWait > maxAckWait {
			bad("ack_wait", "must be 100ms..1h")
		}
	case "none":
		if o.AckWait != 0 {
			bad("ack_wait", "only applies with ack explicit or batch")
		}
	default:
		bad("ack", "must be explicit, batch or none, got "+quote(o.Ack))
	}
	if o.Ack == "batch" {
		if o.AckBatch < 1 || o.AckBatch > maxAckBatch {
			bad("ack_batch", "must be 1..10000")
		}
		if o.AckInterval < minAckInterval || o.AckInterval > maxAckInterval {
			bad("ack_interval", "must be 1ms..10s")
		}
	} else {
		if o.AckBatch != 0 {
			bad("ack_batch", "only applies with ack batch")
		}
		if o.AckInterval != 0 {
			bad("ack_interval", "only applies with ack batch")
		}
	}
	return errs
}

// ackConfig sets the durable consumer's acknowledgement fields for the options.
func ackConfig(o *Options, c *jetstream.ConsumerConfig) {
	switch o.Ack {
	case "none":
		c.AckPolicy = jetstream.AckNonePolicy
		return
	case "batch":
		c.AckPolicy = jetstream.AckAllPolicy
	default:
		c.AckPolicy = jetstream.AckExplicitPolicy
	}
	c.AckWait = o.AckWait
	// Unlimited: the server's default (1,000) would throttle a run whose consumers' pull
	// requests ask for more in total (4 consumers × fetch_batch 256), and what the receivers
	// hold is already bounded by those requests.
	c.MaxAckPending = -1
}

// settler acknowledges received JetStream messages the way the options say. A consumer
// calls settle after each delivery was recorded, from its one message goroutine, and close
// once no delivery will follow.
type settler interface {
	settle(m jetstream.Msg)
	close()
}

func newSettler(o *Options, onErr func(error)) settler {
	switch o.Ack {
	case "explicit":
		return explicitAcker{onErr: onErr}
	case "batch":
		return &batchAcker{every: o.AckBatch, interval: o.AckInterval, onErr: onErr}
	}
	return noAck{}
}

type noAck struct{}

func (noAck) settle(jetstream.Msg) {}
func (noAck) close()               {}

// explicitAcker acknowledges each message without waiting for the server's confirmation
// (nats.go queues "+ACK" on the connection's write buffer); a lost ack is a redelivery after
// ack_wait, which the ledger shows as a duplicate.
type explicitAcker struct{ onErr func(error) }

func (a explicitAcker) settle(m jetstream.Msg) {
	if err := m.Ack(); err != nil {
		a.onErr(err)
	}
}

func (explicitAcker) close() {}

// batchAcker acknowledges the latest message (AckPolicy all: every earlier one with it) every
// `every` messages, or `interval` after the first message it has not acknowledged yet.
type batchAcker struct {
	every    int
	interval time.Duration
	onErr    func(error)

	mu    sync.Mutex
	last  jetstream.Msg // the latest message not acknowledged yet, nil when none
	n     int           // messages since the last acknowledgement
	timer *time.Timer
}

func (b *batchAcker) settle(m jetstream.Msg) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.last = m
	b.n++
	if b.n >= b.every {
		b.ackLocked()
		return
	}
	if b.n == 1 {
		if b.timer == nil {
			b.timer = time.AfterFunc(b.interval, b.flush)
		} else {
			b.timer.Reset(b.interval)
		}
	}
}

// flush acknowledges what is pending (the interval's timer, and close).
func (b *batchAcker) flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ackLocked()
}

func (b *batchAcker) ackLocked() {
	if b.timer != nil {
		b.timer.Stop()
	}
	if b.last == nil {
		return
	}
	if err := b.last.Ack(); err != nil {
		b.onErr(err)
	}
	b.last, b.n = nil, 0
}

func (b *batchAcker) close() { b.flush() }
