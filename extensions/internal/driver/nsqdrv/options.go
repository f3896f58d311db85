package nsqdrv

import (
	"strconv"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Options is the scenario's `broker.nsq` block.
type Options struct {
	// Channel is the NSQ channel the run's consumers read (they share its messages); default:
	// "mqbench-<run id>". Same naming rules as topics: 1–64 characters of . a-z A-Z 0-9 _ -,
	// optionally ending in #ephemeral.
	Channel string `yaml:"channel"`
	// MaxInFlight is how many messages nsqd may send each consumer before it finishes them
	// (the RDY count).
	MaxInFlight int `yaml:"max_in_flight"`
	// OutputBufferSize is how many bytes nsqd gathers before it writes to a consumer (IDENTIFY
	// output_buffer_size); it writes sooner after output_buffer_timeout. -1 writes every
	// message at once. With nsqd's 16384, small messages at a few thousand per second wait
	// milliseconds in that buffer, which end-to-end latency shows.
	OutputBufferSize int64 `yaml:"output_buffer_size"`
	// OutputBufferTimeout is the longest nsqd holds a consumer's buffered messages (IDENTIFY
	// output_buffer_timeout).
	OutputBufferTimeout time.Duration `yaml:"output_buffer_timeout"`
	// HTTPAddress is nsqd's HTTP API as host:port (topic and channel creation, deletion and
	// stats); default: the url's host, at the url's port + 1 (4151 for nsqd's usual 4150).
	// https://host:port calls nsqd's HTTPS API (--https-address, the only one a
	// --tls-required=true nsqd serves) with the tls block's CA and client certificate.
	HTTPAddress string `yaml:"http_address"`
	// TLS upgrades every TCP connection to TLS after IDENTIFY (nsqd with --tls-cert; needed
	// by --tls-required): the CA that verifies nsqd, the client certificate that
	// --tls-client-auth-policy requires, the name nsqd's certificate must carry (default:
	// the url's host). File names relative to the scenario file.
	TLS *driver.TLS `yaml:"tls"`
	// AuthSecretEnv names an environment variable holding the secret sent with AUTH to an
	// nsqd that requires it (--auth-http-address); the secret itself never appears in the
	// scenario. Use it over TLS: AUTH sends the secret as it is.
	AuthSecretEnv string `yaml:"auth_secret_env"`
	// AuthSecretFile is a file holding that secret (one trailing line break ignored); not
	// with auth_secret_env.
	AuthSecretFile string `yaml:"auth_secret_file"`
	// PublishBatch is the most messages one publish request carries: 1 (default) sends each
	// with its own PUB; more sends what waits for the producer's connection as one MPUB (up
	// to this many, and nsqd's 5 MiB --max-body-size), answered by one OK for all. A
	// message's publish latency then runs from its send to its batch's OK, so it includes
	// its wait for the batch (up to publish_linger, or the MPUB before it); end-to-end
	// latency includes that wait too.
	PublishBatch int `yaml:"publish_batch"`
	// PublishLinger is how long a batch that is not full waits for more messages before it
	// leaves (with publish_batch > 1); 0 sends what is waiting at once, so batches fill only
	// when messages arrive faster than MPUBs leave.
	PublishLinger time.Duration `yaml:"publish_linger"`
	// Keep leaves a topic the run created in place after the run (the run's channel is still
	// deleted when the run created it).
	Keep bool `yaml:"keep"`
}

// Defaults fills unset fields.
func (o *Options) Defaults() {
	if o.MaxInFlight == 0 {
		o.MaxInFlight = 200
	}
	if o.OutputBufferSize == 0 {
		o.OutputBufferSize = 16384
	}
	if o.PublishBatch == 0 {
		o.PublishBatch = 1
	}
	if o.OutputBufferTimeout == 0 {
		o.OutputBufferTimeout = 250 * time.Millisecond
	}
}

// Validate checks each field.
func (o *Options) Validate() []driver.FieldError {
	var errs []driver.FieldError
	if o.Channel != "" {
		if err := checkName("channel", o.Channel); err != nil {
			errs = append(errs, driver.FieldError{Field: "channel", Msg: err.Error()})
		}
	}
	if o.HTTPAddress != "" {
		if _, hostPort, err := splitHTTPAddress(o.HTTPAddress); err != nil {
			errs = append(errs, driver.FieldError{Field: "http_address", Msg: err.Error()})
		} else if err := driver.CheckHostPort(hostPort, "http_address"); err != nil {
			errs = append(errs, driver.FieldError{Field: "http_address", Msg: err.Error()})
		}
	}
	if o.OutputBufferSize != -1 && (o.OutputBufferSize < 64 || o.OutputBufferSize > 65536) {
		// nsqd's default --max-output-buffer-size is 65536.
		errs = append(errs, driver.FieldError{Field: "output_buffer_size", Msg: "must be -1 (no buffering) or 64..65536 (nsqd's default --max-output-buffer-size), got " + strconv.FormatInt(o.OutputBufferSize, 10)})
	}
	if o.OutputBufferTimeout < 25*time.Millisecond || o.OutputBufferTimeout > 30*time.Second {
		// nsqd's default --min-output-buffer-timeout and --max-output-buffer-timeout.
		errs = append(errs, driver.FieldError{Field: "output_buffer_timeout", Msg: "must be 25ms..30s (nsqd's default --min/--max-output-buffer-timeout), got " + o.OutputBufferTimeout.String()})
	}
	if o.MaxInFlight < 1 || o.MaxInFlight > 2500 {
		// 2500: nsqd's default --max-rdy-count.
		errs = append(errs, driver.FieldError{Field: "max_in_flight", Msg: "must be 1..2500 (nsqd's default --max-rdy-count), got " + strconv.Itoa(o.MaxInFlight)})
	}
	if o.PublishBatch < 1 || o.PublishBatch > maxPublishBatch {
		errs = append(errs, driver.FieldError{Field: "publish_batch", Msg: "must be 1.." + strconv.Itoa(maxPublishBatch) + ", got " + strconv.Itoa(o.PublishBatch)})
	}
	if o.PublishLinger < 0 || o.PublishLinger > time.Second {
		errs = append(errs, driver.FieldError{Field: "publish_linger", Msg: "must be between 0 and 1s, got " + o.PublishLinger.String()})
	}
	errs = append(errs, o.TLS.Validate("tls")...)
	return append(errs, o.authSecret().Check()...)
}

// authSecret is where the scenario says the auth secret comes from.
func (o *Options) authSecret() driver.SecretSource {
	return driver.SecretSource{EnvField: "auth_secret_env", Env: o.AuthSecretEnv, FileField: "auth_secret_file", File: o.AuthSecretFile}
}

// maxPublishBatch bounds publish_batch: an MPUB of 10,000 1 KiB messages is already over
// nsqd's default 5 MiB body.
const maxPublishBatch = 10000

// AckMode says what publish latency waits for: nsqd's OK to PUB (the message is in the
// topic's memory queue or on disk, and copied to every channel).
func (o *Options) AckMode() driver.AckMode { return "pub-ok" }
