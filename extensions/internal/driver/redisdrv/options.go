package redisdrv

import (
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Options is the scenario's `broker.redis` block.
type Options struct {
	// Mode is pubsub (PUBLISH / SUBSCRIBE, at-most-once) or streams (XADD, consumer group
	// XREADGROUP + XACK).
	Mode string `yaml:"mode"`
	// Group is the consumer group (streams); default: "mqbench-<run id>".
	Group string `yaml:"group"`
	// MaxLen caps the stream with XADD MAXLEN ~ (streams); 0 = no cap.
	MaxLen int64 `yaml:"maxlen"`
	// ReadCount is COUNT for XREADGROUP (streams).
	ReadCount int `yaml:"read_count"`
	// Block is BLOCK for XREADGROUP (streams).
	Block time.Duration `yaml:"block"`
	// PasswordEnv names an environment variable holding the password (never the password
	// itself); an ACL user's name goes in the url (redis://bench@host:6379).
	PasswordEnv string `yaml:"password_env"`
	// TLS connects with TLS (a server with tls-port; rediss:// alone uses the system's roots):
	// the CA that verifies it, and the client certificate a server with tls-auth-clients
	// requires (file names relative to the scenario file).
	TLS *driver.TLS `yaml:"tls"`
	// Keep leaves a stream the run created in place after the run.
	Keep bool `yaml:"keep"`
}

// Defaults fills unset fields.
func (o *Options) Defaults() {
	if o.Mode == "" {
		o.Mode = "pubsub"
	}
	if o.Mode == "streams" {
		if o.ReadCount == 0 {
			o.ReadCount = 256
		}
		if o.Block == 0 {
			o.Block = 100 * time.Millisecond
		}
	}
}

// Validate checks each field.
func (o *Options) Validate() []driver.FieldError {
	var errs []driver.FieldError
	switch o.Mode {
	case "pubsub":
		// A fixed order (alphabetical) so the same scenario always reports the same errors.
		for _, f := range []struct {
			field string
			set   bool
		}{
			{"block", o.Block != 0},
			{"group", o.Group != ""},
			{"maxlen", o.MaxLen != 0},
			{"read_count", o.ReadCount != 0},
		} {
			if f.set {
				errs = append(errs, driver.FieldError{Field: f.field, Msg: "only applies to mode streams"})
			}
		}
	case "streams":
		if o.MaxLen < 0 {
			errs = append(errs, driver.FieldError{Field: "maxlen", Msg: "must be 0 (no cap) or positive"})
		}
		if o.ReadCount < 1 || o.ReadCount > 100000 {
			errs = append(errs, driver.FieldError{Field: "read_count", Msg: "must be 1..100000"})
		}
		if o.Block < time.Millisecond {
			errs = append(errs, driver.FieldError{Field: "block", Msg: "must be at least 1ms"})
		}
	default:
		errs = append(errs, driver.FieldError{Field: "mode", Msg: "must be pubsub or streams, got \"" + o.Mode + "\""})
	}
	return append(errs, o.TLS.Validate("tls")...)
}

// AckMode says what publish latency waits for.
func (o *Options) AckMode() driver.AckMode {
	if o.Mode == "streams" {
		return "xadd-reply"
	}
	return "publish-reply"
}

// promisesDelivery (Spec.PromisesDelivery): a stream keeps messages for the consumer group
// until they are read, unlike pub/sub, which drops them for a subscriber that is not connected.
func promisesDelivery(o driver.Options) bool { return o.(*Options).Mode == "streams" }
