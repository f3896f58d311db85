package pulsardrv

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Options is the scenario's `broker.pulsar` block.
type Options struct {
	// Persistent chooses the topic's domain: persistent:// (stored in BookKeeper, kept for
	// each subscription until acknowledged) or non-persistent:// (in memory, delivered to the
	// consumers connected at that moment).
	Persistent *bool `yaml:"persistent"`
	// Partitions is the number of partitions of a partitioned topic the run creates (admin
	// REST API); 0: a non-partitioned topic.
	Partitions int `yaml:"partitions"`
	// Subscription is the name of the run's subscription; default "mqbench-<run id>". With
	// several subscriptions (workload.subscriptions), "-<n>" is appended for each.
	Subscription string `yaml:"subscription"`
	// SubscriptionType says how the consumers of one subscription share it: shared (round
	// robin), key_shared (by message key), failover (one active consumer, the others on
	// standby) or exclusive (one consumer only: a second one is refused).
	SubscriptionType string `yaml:"subscription_type"`
	// Batching groups messages sent within batch_delay into one entry (one bookie write,
	// one receipt for all of them).
	Batching *bool `yaml:"batching"`
	// BatchDelay is the longest a message waits in the producer for its batch to fill.
	BatchDelay time.Duration `yaml:"batch_delay"`
	// BatchMaxMessages and BatchMaxBytes close a batch before batch_delay is over. A batch is
	// one entry the broker hands to one consumer only when that consumer has room (permits)
	// for all of its messages: on Pulsar 4.0.7 a burst of batches larger than a tenth of
	// receiver_queue_size left a shared subscription stalled with messages in its replay
	// queue, hence the limit.
	BatchMaxMessages int `yaml:"batch_max_messages"`
	// BatchMaxBytes closes a batch once it holds this many bytes; a larger message is sent
	// in a batch of its own.
	BatchMaxBytes int `yaml:"batch_max_bytes"`
	// SendTimeout fails a message the broker has not acknowledged in this time (also while
	// the producer reconnects).
	SendTimeout time.Duration `yaml:"send_timeout"`
	// MaxPendingMessages is how many messages a producer keeps unacknowledged; a Send beyond
	// it waits for room (the client's back-pressure).
	MaxPendingMessages int `yaml:"max_pending_messages"`
	// ReceiverQueueSize is how many messages the broker may push to a consumer ahead of the
	// application (the consumer's flow permits).
	ReceiverQueueSize int `yaml:"receiver_queue_size"`
	// AckGroupTime is how long a consumer gathers acknowledgements before it sends them
	// (the client also sends when 1000 are waiting).
	AckGroupTime time.Duration `yaml:"ack_group_time"`
	// AdminURL is the broker's admin REST API (topic and subscription creation, deletion,
	// stats); default http://<url host>:<url port + 1430> (8080 for Pulsar's usual 6650).
	AdminURL string `yaml:"admin_url"`
	// Keep leaves what the run created (topic, subscriptions) in place after the run.
	Keep bool `yaml:"keep"`
	// TLS configures the pulsar+ssl:// connection and an https:// admin_url: the CA that
	// verifies the broker (tlsTrustCertsFilePath on the client side), the client certificate a
	// broker with tlsRequireTrustedClientCertOnConnect requires, the name the broker's
	// certificate must carry (file names relative to the scenario file). A pulsar+ssl:// url
	// without it uses the system's roots; the block needs a pulsar+ssl:// url.
	TLS *driver.TLS `yaml:"tls"`
	// TokenEnv names an environment variable holding the token (a JWT) a broker with
	// AuthenticationProviderToken takes, on the binary protocol and on the admin REST API
	// (Authorization: Bearer); not with token_file. Never printed.
	TokenEnv string `yaml:"token_env"`
	// TokenFile names a file holding the token (trailing newline dropped); not with
	// token_env. Read when the run starts, never printed.
	TokenFile string `yaml:"token_file"`
}

var subscriptionTypes = []string{"shared", "key_shared", "failover", "exclusive"}

// CloneRefs gives the driver its own copies of the pointer fields.
func (o *Options) CloneRefs() {
	if o.Persistent != nil {
		v := *o.Persistent
		o.Persistent = &v
	}
	if o.Batching != nil {
		v := *o.Batching
		o.Batching = &v
	}
}

// Defaults fills unset fields. The batching delay and size are pulsar-perf's (1 ms, 128 KiB),
// not the client library's 10 ms; at most 100 messages a batch (see BatchMaxMessages).
func (o *Options) Defaults() {
	if o.Persistent == nil {
		o.Persistent = ptr(true)
	}
	if o.SubscriptionType == "" {
		o.SubscriptionType = "shared"
	}
	if o.Batching == nil {
		o.Batching = ptr(true)
	}
	if o.BatchDelay == 0 {
		o.BatchDelay = time.Millisecond
	}
	if o.BatchMaxMessages == 0 {
		o.BatchMaxMessages = 100
	}
	if o.BatchMaxBytes == 0 {
		o.BatchMaxBytes = 128 << 10
	}
	if o.SendTimeout == 0 {
		o.SendTimeout = 30 * time.Second
	}
	if o.MaxPendingMessages == 0 {
		o.MaxPendingMessages = 1000
	}
	if o.ReceiverQueueSize == 0 {
		o.ReceiverQueueSize = 1000
	}
	if o.AckGroupTime == 0 {
		o.AckGroupTime = 100 * time.Millisecond
	}
}

func ptr[T any](v T) *T { return &v }

// Validate checks each field.
func (o *Options) Validate() []driver.FieldError {
	var errs []driver.FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, driver.FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if o.Partitions < 0 || o.Partitions > 10000 {
		add("partitions", "must be 0 (a non-partitioned topic) to 10000, got %d", o.Partitions)
	}
	if o.Subscription != "" {
		if err := checkName("subscription", o.Subscription); err != nil {
			add("subscription", "%v", err)
		}
	}
	if !slices.Contains(subscriptionTypes, o.SubscriptionType) {
		add("subscription_type", "must be one of %s, got %q", strings.Join(subscriptionTypes, ", "), o.SubscriptionType)
	}
	if o.BatchDelay < 0 || o.BatchDelay > 10*time.Second {
		add("batch_delay", "must be between 0 and 10s, got %v", o.BatchDelay)
	}
	if o.BatchMaxMessages < 1 || o.BatchMaxMessages > 100000 {
		add("batch_max_messages", "must be 1..100000, got %d", o.BatchMaxMessages)
	} else if o.ReceiverQueueSize >= 1 && o.BatchMaxMessages*10 > o.ReceiverQueueSize {
		add("batch_max_messages", "must be at most a tenth of receiver_queue_size (%d), got %d: larger batches stalled a subscription on Pulsar 4.0", o.ReceiverQueueSize, o.BatchMaxMessages)
	}
	if o.BatchMaxBytes < 1024 || o.BatchMaxBytes > 5<<20 {
		// 5 MiB: the broker's default maxMessageSize.
		add("batch_max_bytes", "must be 1024..5242880 (the broker's default maxMessageSize), got %d", o.BatchMaxBytes)
	}
	if o.SendTimeout < 100*time.Millisecond || o.SendTimeout > 10*time.Minute {
		add("send_timeout", "must be between 100ms and 10m, got %v", o.SendTimeout)
	}
	if o.MaxPendingMessages < 1 || o.MaxPendingMessages > 1000000 {
		add("max_pending_messages", "must be 1..1000000, got %d", o.MaxPendingMessages)
	}
	if o.ReceiverQueueSize < 1 || o.ReceiverQueueSize > 1000000 {
		add("receiver_queue_size", "must be 1..1000000, got %d", o.ReceiverQueueSize)
	}
	if o.AckGroupTime < time.Millisecond || o.AckGroupTime > 10*time.Second {
		add("ack_group_time", "must be between 1ms and 10s, got %v", o.AckGroupTime)
	}
	if o.AdminURL != "" {
		if err := checkAdminURL(o.AdminURL); err != nil {
			add("admin_url", "%v", err)
		}
	}
	errs = append(errs, o.token().Check()...)
	errs = append(errs, o.TLS.Validate("tls")...)
	return errs
}

// token is where the scenario says the token comes from; an empty one is refused (the
// broker would take it as no credential).
func (o *Options) token() driver.SecretSource {
	return driver.SecretSource{EnvField: "token_env", Env: o.TokenEnv, FileField: "token_file", File: o.TokenFile, NonEmpty: true}
}

// AckMode says what publish latency waits for: the broker's send receipt, which a persistent
// topic sends once the entry is in the bookies' journal (ack quorum, fsynced), a
// non-persistent one once the broker has the message.
func (o *Options) AckMode() driver.AckMode {
	if !o.persistent() {
		return "receipt (in memory)"
	}
	return "receipt (journaled)"
}

// promisesDelivery (Spec.PromisesDelivery): a persistent topic keeps every acknowledged
// message for each durable subscription until a consumer acknowledges it; a non-persistent
// one drops messages a slow or absent consumer cannot take.
func promisesDelivery(o driver.Options) bool { return o.(*Options).persistent() }

func (o *Options) persistent() bool { return o.Persistent == nil || *o.Persistent }
