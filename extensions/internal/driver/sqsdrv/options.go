package sqsdrv

import (
	"fmt"
	"regexp"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Options is the scenario's `broker.sqs` block.
type Options struct {
	// Region is the AWS region the client signs for and, without an endpoint in the url,
	// whose SQS it talks to; default: AWS_REGION, then AWS_DEFAULT_REGION, then us-east-1 when
	// the url names an endpoint (ElasticMQ accepts any region). Credentials are never read
	// from the scenario: only AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN.
	Region string `yaml:"region"`
	// FIFO makes the queue a FIFO queue (its name must then end in .fifo): exactly-once
	// processing within SQS's 5-minute deduplication window, order kept within a message
	// group. Every message gets a deduplication id made of its run, cell, producer and
	// sequence number, so a retried send is dropped by SQS, not delivered twice.
	FIFO bool `yaml:"fifo"`
	// MessageGroupID is the MessageGroupId of every message on a FIFO queue; default: one group
	// per producer connection ("mqbench-<producer>"), so each producer's messages stay in
	// order and consumers read the groups in parallel. One fixed value orders every message
	// of the run (and serialises its consumers).
	MessageGroupID string `yaml:"message_group_id"`
	// QueuePerRun names the queue <destination>-<run id> (the .fifo suffix kept; a long
	// destination is cut to fit SQS's 80 characters, never the run id), so repeated runs never
	// meet: real SQS refuses to create a queue under a name deleted less than 60 s before.
	QueuePerRun bool `yaml:"queue_per_run"`
	// SendBatch is the most messages one request carries: 1 sends each with SendMessage, 2..10
	// with SendMessageBatch (what is waiting when a sender is free, up to this many and
	// max_message_bytes in all). Each message's publish latency ends with its request's answer.
	SendBatch int `yaml:"send_batch"`
	// BatchLinger is how long a sender waits for more messages to fill a batch once it has one
	// (only with send_batch > 1); 0 sends what is waiting at once.
	BatchLinger time.Duration `yaml:"batch_linger"`
	// SendConcurrency is how many send requests one producer connection has in flight. FIFO
	// queues need 1 (SQS orders a group's messages by arrival).
	SendConcurrency int `yaml:"send_concurrency"`
	// ReceiveBatch is MaxNumberOfMessages of each ReceiveMessage (1..10).
	ReceiveBatch int `yaml:"receive_batch"`
	// Receivers is how many ReceiveMessage calls one consumer connection keeps waiting at a
	// time (SQS hands each message to one of them).
	Receivers int `yaml:"receivers"`
	// WaitTimeSeconds is the long-poll wait of each ReceiveMessage (0 = short polling, which
	// samples a subset of SQS's servers and may return nothing while messages wait).
	WaitTimeSeconds *int `yaml:"wait_time_seconds"`
	// VisibilityTimeout (seconds) is how long a received message stays hidden from other
	// receives; a message not deleted by then is delivered again (counted as a duplicate).
	// Set on the queue the run creates and on every ReceiveMessage (when > 0).
	VisibilityTimeout *int `yaml:"visibility_timeout"`
	// DeleteDelay holds each received message this long before it is deleted (a stand-in for
	// processing time). Longer than visibility_timeout, messages are delivered again:
	// at-least-once delivery made visible in the ledger's duplicates.
	DeleteDelay time.Duration `yaml:"delete_delay"`
	// MaxMessageBytes is the largest message body (MaximumMessageSize of the queue the run
	// creates, and the sum of one batch's bodies). Bodies are base64 (SQS bodies are text), so
	// a payload may be 3/4 of it.
	MaxMessageBytes int `yaml:"max_message_bytes"`
	// Keep leaves a queue the run created in place after the run.
	Keep bool `yaml:"keep"`
}

const (
	defaultWait       = 20 // SQS's longest long poll: fewest empty receives
	defaultVisibility = 30 // SQS's own default
	defaultMaxBytes   = 262144
)

// Defaults fills unset fields.
func (o *Options) Defaults() {
	if o.SendBatch == 0 {
		o.SendBatch = 1
	}
	if o.SendConcurrency == 0 {
		o.SendConcurrency = 8
		if o.FIFO {
			o.SendConcurrency = 1
		}
	}
	if o.ReceiveBatch == 0 {
		o.ReceiveBatch = 10
	}
	if o.Receivers == 0 {
		// ElasticMQ slows down ~10x with several long polls waiting on a FIFO queue (measured:
		// 2000 messages in 1.3 s with one, 13 s with four).
		o.Receivers = 2
		if o.FIFO {
			o.Receivers = 1
		}
	}
	if o.WaitTimeSeconds == nil {
		v := defaultWait
		o.WaitTimeSeconds = &v
	}
	if o.VisibilityTimeout == nil {
		v := defaultVisibility
		o.VisibilityTimeout = &v
	}
	if o.MaxMessageBytes == 0 {
		o.MaxMessageBytes = defaultMaxBytes
	}
}

// CloneRefs gives the driver its own copies of the pointer fields.
func (o *Options) CloneRefs() {
	if o.WaitTimeSeconds != nil {
		v := *o.WaitTimeSeconds
		o.WaitTimeSeconds = &v
	}
	if o.VisibilityTimeout != nil {
		v := *o.VisibilityTimeout
		o.VisibilityTimeout = &v
	}
}

var (
	validRegion = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)
	// SQS: MessageGroupId is 1–128 characters of a-z A-Z 0-9 and punctuation.
	validGroup = regexp.MustCompile("^[a-zA-Z0-9!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~]{1,128}$")
)

// Validate checks each field.
func (o *Options) Validate() []driver.FieldError {
	var errs []driver.FieldError
	add := func(field, format string, a ...any) {
		errs = append(errs, driver.FieldError{Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	if o.Region != "" && !validRegion.MatchString(o.Region) {
		add("region", "%q is not a region name (for example eu-west-1)", o.Region)
	}
	if o.MessageGroupID != "" {
		if !o.FIFO {
			add("message_group_id", "only applies to FIFO queues (fifo: true)")
		} else if !validGroup.MatchString(o.MessageGroupID) {
			add("message_group_id", "must be 1–128 characters of a-z A-Z 0-9 and punctuation, got %q", o.MessageGroupID)
		}
	}
	if o.SendBatch < 1 || o.SendBatch > 10 {
		add("send_batch", "must be 1..10 (SendMessageBatch's limit), got %d", o.SendBatch)
	}
	if o.BatchLinger < 0 || o.BatchLinger > time.Second {
		add("batch_linger", "must be between 0 and 1s, got %v", o.BatchLinger)
	}
	switch {
	case o.SendConcurrency < 1 || o.SendConcurrency > 64:
		add("send_concurrency", "must be 1..64, got %d", o.SendConcurrency)
	case o.FIFO && o.SendConcurrency != 1:
		add("send_concurrency", "must be 1 on a FIFO queue (SQS orders a message group by arrival; concurrent requests would reorder it), got %d", o.SendConcurrency)
	}
	if o.ReceiveBatch < 1 || o.ReceiveBatch > 10 {
		add("receive_batch", "must be 1..10 (ReceiveMessage's limit), got %d", o.ReceiveBatch)
	}
	if o.Receivers < 1 || o.Receivers > 32 {
		add("receivers", "must be 1..32, got %d", o.Receivers)
	}
	if w := o.WaitTimeSeconds; w != nil && (*w < 0 || *w > 20) {
		add("wait_time_seconds", "must be 0..20 (SQS's longest long poll), got %d", *w)
	}
	if v := o.VisibilityTimeout; v != nil && (*v < 0 || *v > 43200) {
		add("visibility_timeout", "must be 0..43200 seconds (12 hours, SQS's limit), got %d", *v)
	}
	if o.DeleteDelay < 0 || o.DeleteDelay > time.Hour {
		add("delete_delay", "must be between 0 and 1h, got %v", o.DeleteDelay)
	}
	if o.MaxMessageBytes < 1024 || o.MaxMessageBytes > 1048576 {
		add("max_message_bytes", "must be 1024..1048576 (SQS's range for MaximumMessageSize), got %d", o.MaxMessageBytes)
	}
	return errs
}

// AckMode says what publish latency waits for: SQS's answer to SendMessage or
// SendMessageBatch (the message is stored: on AWS, redundantly across availability zones).
func (o *Options) AckMode() driver.AckMode { return "send-response" }

// maxPayload (Spec.MaxPayload): bodies are base64, 4 characters per 3 bytes.
func maxPayload(o driver.Options) (int, string) {
	return o.(*Options).MaxMessageBytes / 4 * 3, "max_message_bytes"
}
