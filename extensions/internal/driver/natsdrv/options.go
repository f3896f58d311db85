package natsdrv

import (
	"net/url"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Options is the scenario's `broker.nats` block.
type Options struct {
	// Mode is core (fire-and-forget publish, plain subscription) or jetstream (acknowledged
	// publish into a stream, pull consumer).
	Mode string `yaml:"mode"`
	// Stream names the JetStream stream; default: the destination upper-cased, every character
	// other than A-Z and 0-9 replaced by '_'.
	Stream string `yaml:"stream"`
	// Storage is file or memory (JetStream).
	Storage string `yaml:"storage"`
	// Replicas of the stream (JetStream), 1..5.
	Replicas int `yaml:"replicas"`
	// FetchBatch is how many messages one pull request asks for (JetStream).
	FetchBatch int `yaml:"fetch_batch"`
	// AckTimeout bounds the wait for a JetStream publish acknowledgement (0 or unset: 5s).
	AckTimeout time.Duration `yaml:"ack_timeout"`
	// Ack is how receivers settle what they receive (JetStream): explicit (the run's durable
	// consumer has AckPolicy explicit and the receiver acknowledges every message on its own
	// once it is recorded, without waiting for the server to confirm), batch (AckPolicy all:
	// the receiver acknowledges its latest message every ack_batch messages or after
	// ack_interval, whichever comes first, which also settles every earlier one, including
	// messages another consumer connection of the run has received but not yet recorded) or
	// none (AckPolicy none: the server forgets a message once sent, so one lost on the way, or
	// held by a receiver that dies, never comes back). With explicit or batch, a message not
	// acknowledged within ack_wait is delivered again (a duplicate in the ledger), what is
	// delivered but unacknowledged counts in the broker's backlog, and the consumer's
	// max_ack_pending is unlimited: the pull requests (fetch_batch), not the server's default of
	// 1,000, bound what is in flight. Measured with one receiver taking a backlog of 1 KB
	// messages from a file stream (nats-server 2.15, a busy 2-core machine): none 68,000 msg/s
	// and 5.8 µs of receiver CPU per message, batch 49,000 msg/s and 6.5 µs, explicit 25,000
	// msg/s (the server handles every acknowledgement) and 8.4 µs; at 5,000 msg/s the three
	// differ by less than the measurement's noise. Explicit is the default (every message
	// settled on its own, nothing settled unseen); batch suits rates beyond what it sustains.
	Ack string `yaml:"ack"`
	// AckWait is how long the server waits for a delivered message's acknowledgement before
	// delivering it again (JetStream's AckWait), with ack explicit or batch. A receiver that
	// takes longer than this to reach a message receives it twice; a delivery lost on the way
	// (a leader change, a dropped connection) arrives this long after it was sent, so a fault
	// scenario sets it shorter than the drain for such a message to be counted received.
	AckWait time.Duration `yaml:"ack_wait"`
	// AckBatch is how many messages one acknowledgement settles at most, with ack batch.
	AckBatch int `yaml:"ack_batch"`
	// AckInterval is the longest a received message waits for its acknowledgement, with ack
	// batch (a receiver that received fewer than ack_batch messages acknowledges then).
	AckInterval time.Duration `yaml:"ack_interval"`
	// Keep leaves a stream the run created in place after the run.
	Keep bool `yaml:"keep"`
	// MonitorURL is the server's HTTP monitoring endpoint (http://host:port, the port of
	// nats-server -m, e.g. http://127.0.0.1:8222), from which broker stats read the server's
	// CPU and memory (/varz). Empty: they are unknown. Not with url embedded, whose server
	// is read directly. JetStream backlog needs no monitoring port (the JetStream API).
	MonitorURL string `yaml:"monitor_url"`
	// TLS connects with TLS (a server with `tls {}` in its configuration): the CA that
	// verifies it, and the client certificate a server with `verify: true` requires (file
	// names relative to the scenario file).
	TLS *driver.TLS `yaml:"tls"`
	// CredentialsFile is a .creds file (user JWT and NKey seed) from an operator/account
	// setup (nsc), what `nats --creds` takes; not with nkey_seed_file. User and password or
	// a token go in the url instead, from the environment: nats://bench:${NATS_PASSWORD}@host:4222.
	CredentialsFile string `yaml:"credentials_file"`
	// NKeySeedFile is a file holding a user's NKey seed (SU…), for a server whose
	// authorization lists the user's public key; not with credentials_file.
	NKeySeedFile string `yaml:"nkey_seed_file"`
}

// Defaults fills unset fields.
func (o *Options) Defaults() {
	if o.Mode == "" {
		o.Mode = "core"
	}
	if o.Mode == "jetstream" {
		if o.Storage == "" {
			o.Storage = "file"
		}
		if o.Replicas == 0 {
			o.Replicas = 1
		}
		if o.FetchBatch == 0 {
			o.FetchBatch = 256
		}
		if o.AckTimeout == 0 {
			o.AckTimeout = 5 * time.Second
		}
		if o.Ack == "" {
			o.Ack = defaultAck
		}
		if o.Ack != "none" && o.AckWait == 0 {
			o.AckWait = defaultAckWait
		}
		if o.Ack == "batch" {
			if o.AckBatch == 0 {
				o.AckBatch = defaultAckBatch
			}
			if o.AckInterval == 0 {
				o.AckInterval = defaultAckInterval
			}
		}
	}
}

// Validate checks each field.
func (o *Options) Validate() []driver.FieldError {
	var errs []driver.FieldError
	switch o.Mode {
	case "core":
		// A fixed order (alphabetical) so the same scenario always reports the same errors.
		for _, f := range []struct {
			field string
			set   bool
		}{
			{"ack", o.Ack != ""},
			{"ack_batch", o.AckBatch != 0},
			{"ack_interval", o.AckInterval != 0},
			{"ack_timeout", o.AckTimeout != 0},
			{"ack_wait", o.AckWait != 0},
			{"fetch_batch", o.FetchBatch != 0},
			{"replicas", o.Replicas != 0},
			{"storage", o.Storage != ""},
			{"stream", o.Stream != ""},
		} {
			if f.set {
				errs = append(errs, driver.FieldError{Field: f.field, Msg: "only applies to mode jetstream"})
			}
		}
	case "jetstream":
		if o.Storage != "file" && o.Storage != "memory" {
			errs = append(errs, driver.FieldError{Field: "storage", Msg: "must be file or memory, got " + quote(o.Storage)})
		}
		if o.Replicas < 1 || o.Replicas > 5 {
			errs = append(errs, driver.FieldError{Field: "replicas", Msg: "must be 1..5"})
		}
		if o.FetchBatch < 1 || o.FetchBatch > 10000 {
			errs = append(errs, driver.FieldError{Field: "fetch_batch", Msg: "must be 1..10000"})
		}
		if o.AckTimeout < 0 {
			errs = append(errs, driver.FieldError{Field: "ack_timeout", Msg: "must be positive"})
		}
		errs = append(errs, o.validateAck()...)
	default:
		errs = append(errs, driver.FieldError{Field: "mode", Msg: "must be core or jetstream, got " + quote(o.Mode)})
	}
	if o.MonitorURL != "" {
		if u, err := url.Parse(o.MonitorURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, driver.FieldError{Field: "monitor_url", Msg: "want http://host:port or https://host:port, got " + quote(o.MonitorURL)})
		} else if u.User != nil {
			errs = append(errs, driver.FieldError{Field: "monitor_url", Msg: "must not carry credentials (the monitoring endpoint takes none)"})
		}
	}
	return append(errs, o.validateAuth()...)
}

// AckMode says what publish latency waits for.
func (o *Options) AckMode() driver.AckMode {
	if o.Mode == "jetstream" {
		return "jetstream-puback"
	}
	return "none"
}

func quote(s string) string { return "\"" + s + "\"" }

// promisesDelivery (Spec.PromisesDelivery): JetStream acknowledges each publish after storing it,
// and with receiver acknowledgements keeps each message until it was received. With ack none
// a delivery lost on the way is never sent again: a fault may lose messages by design.
func promisesDelivery(o driver.Options) bool {
	n := o.(*Options)
	return n.Mode == "jetstream" && n.Ack != "none"
}
