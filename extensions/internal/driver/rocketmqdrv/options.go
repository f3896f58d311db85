package rocketmqdrv

import (
	"strconv"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Send modes: how a publisher hands a message to the broker.
const (
	sendAsync  = "async"  // SendAsync: the broker's answer resolves the ack later
	sendSync   = "sync"   // SendSync: Send waits for the broker's answer
	sendOneway = "oneway" // SendOneWay: no answer at all
)

// Options is the scenario's `broker.rocketmq` block. Whether the broker flushes to disk
// before it answers is the broker's setting (flushDiskType), not the client's.
type Options struct {
	// Send is how producers send: async (default: SendAsync, several messages in flight per
	// producer, each acknowledged by the broker's send result), sync (SendSync: one message
	// at a time per producer, each publish waits for the result) or oneway (SendOneWay: no answer,
	// publish latency not measured).
	Send string `yaml:"send"`
	// MaxInFlight is how many async sends one producer may have unanswered; a publish waits
	// for a free slot beyond that. rocketmq-client-go sets no limit, and a burst the broker
	// cannot take at once waits in its send queue until the broker refuses it as busy (after
	// waitTimeMillsInSendQueue). A producer's throughput is at most max_in_flight / publish
	// latency: 1024 at a 100 ms hiccup still allows 10,000 msg/s (the Java client allows
	// 10,000 unanswered). Only for send: async.
	MaxInFlight int `yaml:"max_in_flight"`
	// Queues is how many queues (read and write) Setup gives a topic it creates, on each
	// master broker; consumers of one group share the queues, so more consumers than queues
	// leave some idle.
	Queues int `yaml:"queues"`
	// Group is the consumer group the run's consumers join (they share its messages);
	// default "mqbench-<run id>". Fan-out subscriptions 1, 2, … use "<group>-s1", "-s2", ….
	// 1–120 characters of a-z A-Z 0-9 _ - (RocketMQ also names a retry topic after it).
	Group string `yaml:"group"`
	// PullBatchSize is how many messages a consumer asks for per pull of one queue.
	PullBatchSize int `yaml:"pull_batch_size"`
	// PublishBatch is the most messages one async send carries: 1 (default) sends each
	// message alone; more sends what waits for the producer as one batch (SendAsync of
	// several messages: one request, one send result for all, up to this many and the
	// broker's 4 MiB maxMessageSize; messages with a key are still sent alone, to their key's
	// queue). A message's publish latency then runs from its send to its batch's result, so
	// it includes its wait for the batch (up to publish_linger, or a free in-flight slot);
	// end-to-end latency includes that wait too. Only for send: async.
	PublishBatch int `yaml:"publish_batch"`
	// PublishLinger is how long a batch that is not full waits for more messages before it
	// leaves (with publish_batch > 1); 0 sends what is waiting at once.
	PublishLinger time.Duration `yaml:"publish_linger"`
	// Keep leaves a topic the run created in place after the run (run-named consumer groups
	// are still removed).
	Keep bool `yaml:"keep"`
}

// Defaults fills unset fields.
func (o *Options) Defaults() {
	if o.Send == "" {
		o.Send = sendAsync
	}
	if o.Queues == 0 {
		o.Queues = 8
	}
	if o.MaxInFlight == 0 {
		o.MaxInFlight = 1024
	}
	if o.PullBatchSize == 0 {
		o.PullBatchSize = 32
	}
	if o.PublishBatch == 0 {
		o.PublishBatch = 1
	}
}

// Validate checks each field.
func (o *Options) Validate() []driver.FieldError {
	var errs []driver.FieldError
	switch o.Send {
	case sendAsync, sendSync, sendOneway:
	default:
		errs = append(errs, driver.FieldError{Field: "send", Msg: "must be async, sync or oneway, got " + strconv.Quote(o.Send)})
	}
	if o.MaxInFlight < 1 || o.MaxInFlight > 65535 {
		// 65535: the Java client's async send semaphore.
		errs = append(errs, driver.FieldError{Field: "max_in_flight", Msg: "must be 1..65535, got " + strconv.Itoa(o.MaxInFlight)})
	}
	if o.Queues < 1 || o.Queues > 1024 {
		errs = append(errs, driver.FieldError{Field: "queues", Msg: "must be 1..1024, got " + strconv.Itoa(o.Queues)})
	}
	if o.Group != "" {
		if err := checkName("consumer group", o.Group, maxGroup); err != nil {
			errs = append(errs, driver.FieldError{Field: "group", Msg: err.Error()})
		}
	}
	if o.PullBatchSize < 1 || o.PullBatchSize > 1024 {
		// 1024: the broker's maxTransferCountOnMessageInMemory default.
		errs = append(errs, driver.FieldError{Field: "pull_batch_size", Msg: "must be 1..1024, got " + strconv.Itoa(o.PullBatchSize)})
	}
	switch {
	case o.PublishBatch < 1 || o.PublishBatch > 1000:
		errs = append(errs, driver.FieldError{Field: "publish_batch", Msg: "must be 1..1000, got " + strconv.Itoa(o.PublishBatch)})
	case o.PublishBatch > 1 && o.Send != sendAsync:
		errs = append(errs, driver.FieldError{Field: "publish_batch", Msg: "must be 1 unless send is async (batches are sent asynchronously), got " + strconv.Itoa(o.PublishBatch)})
	}
	if o.PublishLinger < 0 || o.PublishLinger > time.Second {
		errs = append(errs, driver.FieldError{Field: "publish_linger", Msg: "must be between 0 and 1s, got " + o.PublishLinger.String()})
	}
	return errs
}

// AckMode says what publish latency waits for: the broker's send result (SEND_OK once the
// message is in its commit log: page cache with ASYNC_FLUSH, on disk with SYNC_FLUSH), or
// nothing with oneway.
func (o *Options) AckMode() driver.AckMode {
	if o.Send == sendOneway {
		return "none"
	}
	return "send-result"
}

// promisesDelivery (Spec.PromisesDelivery): an acknowledged message is in the broker's commit
// log and the consumer group's offset waits for it, so a lost message is a failure; oneway
// sends promise nothing.
func promisesDelivery(o driver.Options) bool { return o.(*Options).Send != sendOneway }
