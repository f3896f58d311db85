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
			{"ack_timeout", o.AckTimeout != 0},
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

// promisesDelivery (Spec.PromisesDelivery): JetStream acknowledges each publish after storing it.
func promisesDelivery(o driver.Options) bool { return o.(*Options).Mode == "jetstream" }
