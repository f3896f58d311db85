package zmqdrv

import (
	"strconv"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Options is the scenario's `broker.zeromq` block.
type Options struct {
	// Pattern is push-pull (each message reaches one consumer, round-robin over the consumers)
	// or pub-sub (each message reaches every consumer subscribed to the destination).
	Pattern string `yaml:"pattern"`
	// HWM is the high-water mark of each PUB→SUB connection (pub-sub): messages queued for a
	// subscriber beyond it are dropped without an error, and the ledger counts them lost;
	// -1 = no limit. Default 1000, ZeroMQ's SNDHWM.
	HWM int `yaml:"hwm"`
	// SendTimeout bounds one send (push-pull): a consumer that stops reading fills the TCP
	// buffers and blocks the PUSH; after this long the producer closes its sockets and fails.
	SendTimeout time.Duration `yaml:"send_timeout"`
}

const (
	patternPushPull = "push-pull"
	patternPubSub   = "pub-sub"

	defaultHWM         = 1000
	defaultSendTimeout = 5 * time.Second
)

// Defaults fills unset fields.
func (o *Options) Defaults() {
	if o.Pattern == "" {
		o.Pattern = patternPushPull
	}
	switch o.Pattern {
	case patternPushPull:
		if o.SendTimeout == 0 {
			o.SendTimeout = defaultSendTimeout
		}
	case patternPubSub:
		if o.HWM == 0 {
			o.HWM = defaultHWM
		}
	}
}

// Validate checks each field.
func (o *Options) Validate() []driver.FieldError {
	var errs []driver.FieldError
	switch o.Pattern {
	case patternPushPull:
		if o.HWM != 0 {
			errs = append(errs, driver.FieldError{Field: "hwm", Msg: "only applies to pattern pub-sub"})
		}
		if o.SendTimeout < time.Millisecond || o.SendTimeout > time.Minute {
			errs = append(errs, driver.FieldError{Field: "send_timeout", Msg: "must be 1ms..1m"})
		}
	case patternPubSub:
		if o.HWM < -1 || o.HWM == 0 || o.HWM > 10000000 {
			errs = append(errs, driver.FieldError{Field: "hwm", Msg: "must be 1..10000000, or -1 for no limit, got " + strconv.Itoa(o.HWM)})
		}
		if o.SendTimeout != 0 {
			errs = append(errs, driver.FieldError{Field: "send_timeout", Msg: "only applies to pattern push-pull"})
		}
	default:
		errs = append(errs, driver.FieldError{Field: "pattern", Msg: "must be push-pull or pub-sub, got \"" + o.Pattern + "\""})
	}
	return errs
}

// AckMode: ZeroMQ has no acknowledgement; a send is fire-and-forget.
func (o *Options) AckMode() driver.AckMode { return "none" }
