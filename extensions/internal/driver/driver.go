// Package driver is the seam between mqbench's common measurement code and one broker.
//
// A driver knows how to talk to one kind of broker and nothing else: clocks, payload
// headers, latency recording, the delivery ledger and metrics live outside it. Modelled on
// the OpenMessaging Benchmark's BenchmarkDriver: connect, ensure the destination, publish,
// consume into a callback, close.
package driver

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/redact"
	"github.com/mqbench/xk6-mqbench/internal/textclean"
)

// Config is what the scenario says about the broker and the destination, independent of load.
type Config struct {
	// URL is the broker address from the scenario ("nats://127.0.0.1:4222", "redis://…", "embedded").
	URL string
	// Destination is the subject / topic / queue / channel / stream name.
	Destination string
	// Options is the broker's own block from the scenario (for example `nats: {mode: jetstream}`),
	// already decoded strictly into the value returned by Spec.NewOptions and validated.
	Options any
	// RunID identifies this run; drivers may use it to name consumer groups or temporary objects.
	RunID string
	// Subscriptions is how many independent subscriptions the run opens on the destination
	// (each receives every message; 0 or 1: one, as before). Setup creates and Teardown removes
	// each one's broker objects (queue, group, durable consumer).
	Subscriptions int
}

// Message is one outgoing message. Value already carries mqbench's header, which drivers do
// not read: what a driver needs to know about the message travels beside it.
type Message struct {
	Key   []byte // nil when the scenario sets no key
	Value []byte
	// Stamp, when not nil, is mqbench's header for the broker's own message header named
	// StampHeader (stamp.go; only drivers whose Spec.HeaderStamp holds get one): Value is then
	// the body alone. Like Value, it is kept until the Ack resolves unless the publisher copies.
	Stamp []byte
	// ID names the message in its run, the same for every retry of it, for brokers that
	// deduplicate retried sends (SQS FIFO queues).
	ID MessageID
}

// MessageID is the name a run gives one message: its cell, producer and sequence number.
// Issued is false for a message no run issued (the conformance suite's); such a message
// has no name but its body.
type MessageID struct {
	Cell, Producer int
	Seq            uint64
	Issued         bool
}

// Ack resolves when the broker acknowledged one sent message.
type Ack interface {
	// Wait blocks until the broker acknowledged the message, ctx ends, or the send failed.
	Wait(ctx context.Context) error
}

// Publisher is one producer connection. The common code serialises calls to Send on one
// Publisher (so a producer's sequence numbers reach the wire in order); Ack.Wait may be called
// from other goroutines afterwards.
type Publisher interface {
	// Send hands one message to the broker without waiting for its acknowledgement where the
	// client library allows it. It returns a nil Ack when the driver's mode has no broker
	// acknowledgement (fire-and-forget); then publish latency is not measured.
	Send(ctx context.Context, m Message) (Ack, error)
	// Flush pushes out anything buffered client-side (fire-and-forget modes); may be a no-op.
	Flush(ctx context.Context) error
	Close() error
}

// ValueCopier is implemented by publishers whose Send has copied Message.Value (into the
// client's write buffer) by the time it returns, so the caller may reuse the buffer for the
// next message; other publishers keep it until their Ack resolves, and not after: the runner
// fills the value of a message acknowledged without error with a later message's body. At
// 100,000 msg/s a fresh buffer per message is the generator's largest allocation.
type ValueCopier interface {
	CopiesValue() bool
}

// Delivery is called by a Consumer for every message it receives, from the consumer's own
// goroutine, as soon as the message is in hand. receivedAt is taken by the driver right at
// receipt. The callback does not retain value after it returns.
type Delivery func(value []byte, receivedAt time.Time)

// Consumer is one consumer connection.
type Consumer interface {
	// Start subscribes and begins delivering into deliver; it returns once the subscription is
	// live (messages published after Start returns are delivered). Delivery stops at Close.
	Start(ctx context.Context, deliver Delivery) error
	Close() error
}

// Driver is a connected broker for one run.
type Driver interface {
	// Setup makes sure the destination exists with the scenario's settings (stream, queue,
	// topic, consumer group). It is called once, before any publisher or consumer is opened.
	Setup(ctx context.Context) error
	// NewPublisher opens producer connection number id (0-based).
	NewPublisher(ctx context.Context, id int) (Publisher, error)
	// NewConsumer opens consumer connection number id (0-based).
	NewConsumer(ctx context.Context, id int) (Consumer, error)
	// Teardown removes what Setup created, unless the scenario asked to keep it.
	Teardown(ctx context.Context) error
	// Close releases everything the driver holds (an embedded server, shared connections).
	Close() error
}

// AckMode describes what a publish latency means for a driver's configuration; it is shown in
// the summary so a reader knows whether "publish latency" waited for the broker.
type AckMode string

// NoAck is the AckMode of fire-and-forget configurations: sends return no Ack, so publish
// latency is never measured (the scenario parser refuses a threshold on it).
const NoAck AckMode = "none"

// Options is implemented by every driver's options block.
type Options interface {
	// Defaults fills unset fields. It runs after strict decoding and before Validate.
	Defaults()
	// Validate returns one problem per bad field; Field is relative to the options block
	// (for example "mode"), Msg says what is wrong and what is allowed.
	Validate() []FieldError
	// AckMode names what the broker acknowledges in this configuration ("none" for fire-and-forget).
	AckMode() AckMode
}

// FieldError is one validation problem inside a driver's options block.
type FieldError struct {
	Field string
	Msg   string
}

// Spec registers one broker type.
//
// What a broker can do with given options (its capabilities) is declared here and only
// here, as a field holding a predicate on the decoded, defaulted, valid options (nil:
// never): one place to read a driver's abilities, checked by the compiler, where an optional
// method on the options would be skipped silently when misspelt. Users ask with Has.
type Spec struct {
	// NewOptions returns a pointer to a fresh options struct with `yaml` tags; the scenario
	// parser decodes the broker's block into it strictly (unknown keys are errors).
	NewOptions func() Options
	// Open connects to the broker. An unreachable broker is returned as an *UnreachableError.
	Open func(ctx context.Context, cfg Config) (Driver, error)
	// DefaultURL is used when the scenario gives no url.
	DefaultURL string
	// CheckURL says, without connecting, what is wrong with a broker url (scheme, host,
	// port, form); nil when anything goes. Messages must not quote credentials.
	CheckURL func(url string) error
	// CheckDestination applies the broker's naming rules to the destination (the options
	// are decoded, defaulted and valid); nil when any name goes.
	CheckDestination func(name string, opts Options) error
	// Topology says whether the driver, with these options, implements Topology, so a
	// scenario's faults may name the destination's leader or a follower instead of a node;
	// nil: never.
	Topology func(opts Options) bool
	// Holds says whether the destination, with these options, keeps messages for a consumer
	// that stops reading (a queue, a log, a stream) rather than dropping them (core NATS,
	// Redis pub/sub): a backlog can then be built and drained. nil: never.
	Holds func(opts Options) bool
	// RequestReply says whether the driver, with these options, implements RequestReply (a
	// scenario may then measure request-reply round trips); nil: never.
	RequestReply func(opts Options) bool
	// FanOut says whether the driver, with these options, implements FanOut; nil: never.
	FanOut func(opts Options) bool
	// SoleConsumer says whether a subscription, with these options, takes one consumer only
	// (each consumer would receive every message: an MQTT subscription that is not shared):
	// the parser refuses more consumers per subscription. nil: never.
	SoleConsumer func(opts Options) bool
	// PromisesDelivery says whether the broker, with these options, promises delivery
	// (broker acknowledgements, persisted or replicated storage). Such scenarios get the
	// threshold `mq_messages_lost: count == 0` by default: a durable broker that loses a
	// message failed. nil: never.
	PromisesDelivery func(opts Options) bool
	// HeaderStamp says whether the driver, with these options, carries Message.Stamp in the
	// broker's message header and hands the runner stamp‖body on receipt (stamp.go), so the
	// body is exactly the user's (`payload.stamp: header`). nil: never.
	HeaderStamp func(opts Options) bool
	// MaxPayload is the largest payload one message may carry with these options, in bytes,
	// and the option that sets it (Kafka's batch_bytes): the parser refuses a cell whose
	// payload cannot fit, naming both, instead of a run whose every send fails. nil: no limit.
	MaxPayload func(opts Options) (bytes int, option string)
}

// Has reports whether the capability a Spec declares with predicate (nil: never) holds for
// opts, a broker block as the scenario parser decoded it; anything but a driver's Options
// (nil, a block that did not decode) has no capability.
func Has(predicate func(Options) bool, opts any) bool {
	o, ok := opts.(Options)
	return ok && o != nil && predicate != nil && predicate(o)
}

// Topology is implemented by drivers that can tell which nodes hold the destination.
type Topology interface {
	// Placement returns the node leading the destination and the nodes holding its other
	// replicas, as the broker names them (NATS server name, RabbitMQ node, Kafka broker id).
	Placement(ctx context.Context) (leader string, followers []string, err error)
}

var (
	mu       sync.RWMutex
	registry = map[string]Spec{}
)

// Register adds a broker type; drivers call it from init. Registering a name twice panics
// (a programming error, found by any test that imports both).
func Register(name string, s Spec) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[name]; dup {
		panic("driver: " + name + " registered twice")
	}
	registry[name] = s
}

// Lookup returns the broker type registered under name, or an error listing the valid names.
func Lookup(name string) (Spec, error) {
	mu.RLock()
	defer mu.RUnlock()
	s, ok := registry[name]
	if !ok {
		return Spec{}, fmt.Errorf("unknown broker type %q (valid: %s)", name, strings.Join(namesLocked(), ", "))
	}
	return s, nil
}

// Names lists the registered broker types, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// UnreachableError says the broker could not be reached at all (as opposed to a broker that
// answered with an error). mqbench exits with its own code for it.
type UnreachableError struct {
	Broker  string // broker type, "nats"
	Address string // what was dialled, without credentials
	Err     error
}

// Error is one line without credentials: a client library's error may quote the URL it was
// given, password included, and break lines; the text reaches the console and every result file.
func (e *UnreachableError) Error() string {
	return textclean.Clean(redact.Secrets(fmt.Sprintf("%s broker unreachable at %s: %v", e.Broker, e.Address, e.Err)))
}

func (e *UnreachableError) Unwrap() error { return e.Err }
