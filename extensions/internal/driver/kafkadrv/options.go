package kafkadrv

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Defaults that are not Kafka's own.
const (
	// defaultBatchBytes is Kafka's max.message.bytes default (and franz-go's batch limit).
	defaultBatchBytes = 1_000_012
	// defaultMaxInFlight matches the Java client's max.in.flight.requests.per.connection, and is
	// what franz-go always uses with idempotent producing.
	defaultMaxInFlight = 5
	// idempotentInFlight is franz-go's fixed limit with idempotence (Kafka's limit for
	// idempotent producers).
	idempotentInFlight    = 5
	defaultRequestTimeout = 10 * time.Second
	// defaultFetchMaxWait is franz-go's minimum. It only bounds a fetch that finds less than
	// fetch_min_bytes: with the default 1 byte the broker answers a waiting fetch as soon as
	// a record arrives, so it adds no latency; a short wait just makes empty polls cycle fast.
	defaultFetchMaxWait = 10 * time.Millisecond
	// defaultCommitInterval is franz-go's own autocommit interval.
	defaultCommitInterval = 5 * time.Second
	// minFetchMaxWait is the smallest FetchMaxWait franz-go accepts.
	minFetchMaxWait = 10 * time.Millisecond
)

// Options is the scenario's `broker.kafka` block.
//
// In YAML, acks is written as all, 1 or 0 (quoted or not, -1 meaning all), and security.tls
// as true/false or as a block {ca_file, cert_file, key_file, server_name, insecure_skip_verify}; Go code sets Acks and
// Security.TLS directly.
type Options struct {
	// Acks is what the partition leader waits for before it acknowledges a produce request:
	// "all" (every in-sync replica), "1" (the leader's own log) or "0" (nothing: the record
	// counts as sent once it was written to the socket).
	Acks string `yaml:"-"`
	// AcksNode is acks as written in the scenario (a string or an integer); Defaults turns it
	// into Acks.
	AcksNode yaml.Node `yaml:"acks" json:"-"`
	// Idempotent turns on idempotent producing (no duplicates from the client's own retries);
	// default true with acks all, and only allowed with acks all.
	Idempotent *bool `yaml:"idempotent"`
	// Linger is how long a partition's batch waits for more records before it is sent.
	Linger time.Duration `yaml:"linger"`
	// BatchBytes caps one record batch (franz-go ProducerBatchMaxBytes); must not exceed the
	// topic's max.message.bytes.
	BatchBytes int `yaml:"batch_bytes"`
	// Compression is the producer's batch codec: none, gzip, snappy, lz4 or zstd.
	Compression string `yaml:"compression"`
	// MaxInFlight is the number of produce requests in flight per broker connection. With
	// idempotent producing franz-go always uses 5 (Kafka's limit for idempotence).
	MaxInFlight int `yaml:"max_in_flight"`
	// RequestTimeout is the broker-side timeout of a produce request and the longest a record
	// may wait for its acknowledgement (buffering and retries included) before its Ack fails.
	RequestTimeout time.Duration `yaml:"request_timeout"`

	Topic    TopicOptions    `yaml:"topic"`
	Consumer ConsumerOptions `yaml:"consumer"`
	Security SecurityOptions `yaml:"security"`

	nodeErrs []driver.FieldError // problems found while reading the YAML nodes
}

// TopicOptions says how the run's topic is created.
type TopicOptions struct {
	// Partitions of a topic the run creates.
	Partitions int `yaml:"partitions"`
	// ReplicationFactor of a topic the run creates.
	ReplicationFactor int `yaml:"replication_factor"`
	// Configs are topic configs for a topic the run creates (min.insync.replicas,
	// retention.ms, max.message.bytes, …), values written as quoted strings ("2").
	Configs map[string]string `yaml:"configs"`
	// Create makes Setup create the topic when it does not exist (default true); with false
	// the topic must exist.
	Create *bool `yaml:"create"`
	// Keep leaves a topic the run created in place after the run.
	Keep bool `yaml:"keep"`
}

// ConsumerOptions configures the consumer group the run's consumers share.
type ConsumerOptions struct {
	// Group is the consumer group; default "mqbench-<run id>".
	Group string `yaml:"group"`
	// Start is where a group without committed offsets begins: latest (messages produced
	// after Setup) or earliest (everything in the topic).
	Start string `yaml:"start"`
	// Commit is auto (franz-go autocommit every 5 s and on rebalance/close) or manual-sync
	// (a synchronous commit after every polled batch). Both are at-least-once.
	Commit string `yaml:"commit"`
	// CommitInterval is how often commit: auto commits what was polled (default 5 s; the
	// SoftwareMill study commits every 10 s). Only with commit: auto.
	CommitInterval time.Duration `yaml:"commit_interval"`
	// FetchMaxWait is how long the broker may hold a fetch waiting for FetchMinBytes
	// (default and minimum 10 ms).
	FetchMaxWait time.Duration `yaml:"fetch_max_wait"`
	// FetchMinBytes is how much data a fetch waits for (up to FetchMaxWait).
	FetchMinBytes int `yaml:"fetch_min_bytes"`
}

// SecurityOptions configures TLS and SASL. Secrets never appear in the scenario: SASL names
// environment variables.
type SecurityOptions struct {
	// TLS dials brokers with TLS: tls: true, or a block {ca_file, cert_file, key_file,
	// server_name, insecure_skip_verify} (client certificates: mutual TLS; file names
	// relative to the scenario file); off by default.
	TLS *TLSOptions `yaml:"-"`
	// TLSNode is tls as written in the scenario (a boolean or a block); Defaults turns it
	// into TLS.
	TLSNode yaml.Node `yaml:"tls" json:"-"`
	// SASL authenticates every connection: {mechanism, username_env, password_env}; off by
	// default.
	SASL *SASLOptions `yaml:"sasl"`
}

// TLSOptions is the `tls:` block: the shape every driver's tls block has (driver.TLS).
type TLSOptions = driver.TLS

// SASLOptions is the `sasl:` block.
type SASLOptions struct {
	// Mechanism is PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
	Mechanism string `yaml:"mechanism"`
	// UsernameEnv names the environment variable that holds the user name.
	UsernameEnv string `yaml:"username_env"`
	// PasswordEnv names the environment variable that holds the password.
	PasswordEnv string `yaml:"password_env"`
}

// Defaults fills unset fields. It may run more than once.
func (o *Options) Defaults() {
	o.nodeErrs = nil
	if o.AcksNode.Kind != 0 {
		if v, err := acksFromNode(&o.AcksNode); err != "" {
			o.nodeErrs = append(o.nodeErrs, driver.FieldError{Field: "acks", Msg: err})
		} else {
			o.Acks = v
		}
	}
	switch strings.ToLower(strings.TrimSpace(o.Acks)) {
	case "", "all", "-1":
		o.Acks = "all"
	case "1", "0":
		o.Acks = strings.TrimSpace(o.Acks)
	}
	if o.Idempotent == nil {
		v := o.Acks == "all"
		o.Idempotent = &v
	}
	if o.BatchBytes == 0 {
		o.BatchBytes = defaultBatchBytes
	}
	if o.Compression == "" {
		o.Compression = "none"
	}
	o.Compression = strings.ToLower(o.Compression)
	if o.MaxInFlight == 0 {
		o.MaxInFlight = defaultMaxInFlight
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = defaultRequestTimeout
	}
	if o.Topic.Partitions == 0 {
		o.Topic.Partitions = 1
	}
	if o.Topic.ReplicationFactor == 0 {
		o.Topic.ReplicationFactor = 1
	}
	if o.Topic.Create == nil {
		v := true
		o.Topic.Create = &v
	}
	if o.Consumer.Start == "" {
		o.Consumer.Start = "latest"
	}
	if o.Consumer.Commit == "" {
		o.Consumer.Commit = "auto"
	}
	if o.Consumer.Commit == "auto" && o.Consumer.CommitInterval == 0 {
		o.Consumer.CommitInterval = defaultCommitInterval
	}
	if o.Consumer.FetchMaxWait == 0 {
		o.Consumer.FetchMaxWait = defaultFetchMaxWait
	}
	if o.Consumer.FetchMinBytes == 0 {
		o.Consumer.FetchMinBytes = 1
	}
	// Once read, the block stays: the scenario parser made its file names relative to the
	// scenario after the first Defaults, and the driver calls Defaults again.
	if o.Security.TLS == nil && o.Security.TLSNode.Kind != 0 {
		tls, errs := tlsFromNode(&o.Security.TLSNode)
		o.nodeErrs = append(o.nodeErrs, errs...)
		if len(errs) == 0 {
			o.Security.TLS = tls
		}
	}
	if s := o.Security.SASL; s != nil {
		s.Mechanism = strings.ToUpper(strings.TrimSpace(s.Mechanism))
	}
}

// Validate checks each field; problems come sorted by field.
func (o *Options) Validate() []driver.FieldError {
	errs := append([]driver.FieldError(nil), o.nodeErrs...)
	errs = append(errs, o.Security.TLS.Validate("security.tls")...)
	add := func(field, format string, args ...any) {
		errs = append(errs, driver.FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	badAcks := false
	switch o.Acks {
	case "all", "1", "0":
	default:
		badAcks = true
		if !hasField(errs, "acks") {
			add("acks", "must be all, 1 or 0, got %q", o.Acks)
		}
	}
	idem := o.Idempotent != nil && *o.Idempotent
	if idem && o.Acks != "all" && !badAcks {
		add("idempotent", "idempotent producing requires acks: all (got acks: %s); set idempotent: false", o.Acks)
	}
	if o.Linger < 0 || o.Linger > time.Minute {
		add("linger", "must be between 0 and 1m, got %v", o.Linger)
	}
	if o.BatchBytes < 1 || o.BatchBytes > 1<<30 {
		add("batch_bytes", "must be between 1 and 1073741824, got %d", o.BatchBytes)
	}
	if _, ok := codecs[o.Compression]; !ok {
		add("compression", "must be none, gzip, snappy, lz4 or zstd, got %q", o.Compression)
	}
	switch {
	case o.MaxInFlight < 1 || o.MaxInFlight > 100:
		add("max_in_flight", "must be between 1 and 100, got %d", o.MaxInFlight)
	case idem && o.MaxInFlight != idempotentInFlight:
		add("max_in_flight", "with idempotent producing franz-go always keeps up to %d produce requests in flight per broker (Kafka's limit for idempotence); leave max_in_flight unset or 5, or set idempotent: false to choose 1..100",
			idempotentInFlight)
	}
	if o.RequestTimeout < 100*time.Millisecond || o.RequestTimeout > 10*time.Minute {
		add("request_timeout", "must be between 100ms and 10m, got %v", o.RequestTimeout)
	}
	if o.Topic.Partitions < 1 || o.Topic.Partitions > 100_000 {
		add("topic.partitions", "must be between 1 and 100000, got %d", o.Topic.Partitions)
	}
	if o.Topic.ReplicationFactor < 1 || o.Topic.ReplicationFactor > 32767 {
		add("topic.replication_factor", "must be between 1 and 32767, got %d", o.Topic.ReplicationFactor)
	}
	for _, k := range sortedKeys(o.Topic.Configs) {
		if strings.TrimSpace(k) == "" {
			add("topic.configs", "config names must not be empty")
			break
		}
	}
	switch o.Consumer.Start {
	case "latest", "earliest":
	default:
		add("consumer.start", "must be latest or earliest, got %q", o.Consumer.Start)
	}
	switch o.Consumer.Commit {
	case "auto", "manual-sync":
	default:
		add("consumer.commit", "must be auto or manual-sync, got %q", o.Consumer.Commit)
	}
	switch {
	case o.Consumer.Commit != "auto" && o.Consumer.CommitInterval != 0:
		add("consumer.commit_interval", "only applies with commit: auto (manual-sync commits after every polled batch)")
	case o.Consumer.Commit == "auto" && (o.Consumer.CommitInterval < 100*time.Millisecond || o.Consumer.CommitInterval > 10*time.Minute):
		add("consumer.commit_interval", "must be between 100ms and 10m, got %v", o.Consumer.CommitInterval)
	}
	if o.Consumer.FetchMaxWait < minFetchMaxWait || o.Consumer.FetchMaxWait > time.Minute {
		add("consumer.fetch_max_wait", "must be between 10ms (franz-go's minimum) and 1m, got %v", o.Consumer.FetchMaxWait)
	}
	if o.Consumer.FetchMinBytes < 1 || o.Consumer.FetchMinBytes > 1<<30 {
		add("consumer.fetch_min_bytes", "must be between 1 and 1073741824, got %d", o.Consumer.FetchMinBytes)
	}
	if s := o.Security.SASL; s != nil {
		switch s.Mechanism {
		case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
		default:
			add("security.sasl.mechanism", "must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, got %q", s.Mechanism)
		}
		if s.UsernameEnv == "" {
			add("security.sasl.username_env", "required: the name of the environment variable that holds the user name")
		}
		if s.PasswordEnv == "" {
			add("security.sasl.password_env", "required: the name of the environment variable that holds the password")
		}
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Field < errs[j].Field })
	return errs
}

// AckMode says what publish latency waits for.
func (o *Options) AckMode() driver.AckMode {
	switch o.Acks {
	case "1":
		return "kafka-acks-1"
	case "0":
		return "kafka-acks-0 (written to socket, no broker ack)"
	}
	return "kafka-acks-all"
}

func hasField(errs []driver.FieldError, f string) bool {
	for _, e := range errs {
		if e.Field == f {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// acksFromNode reads acks written as all / -1 / 1 / 0, quoted or not.
func acksFromNode(n *yaml.Node) (string, string) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return "", "must be all, 1 or 0"
	}
	switch v := strings.ToLower(strings.TrimSpace(n.Value)); v {
	case "all", "-1":
		return "all", ""
	case "1", "0":
		return v, ""
	default:
		if _, err := strconv.Atoi(v); err == nil {
			return "", fmt.Sprintf("must be all (or -1), 1 or 0, got %s", n.Value)
		}
		return "", fmt.Sprintf("must be all, 1 or 0, got %q", n.Value)
	}
}

// tlsFromNode reads `tls: true|false` or `tls: {ca_file: …, insecure_skip_verify: …}`.
func tlsFromNode(n *yaml.Node) (*TLSOptions, []driver.FieldError) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	bad := func(field, msg string) []driver.FieldError {
		return []driver.FieldError{{Field: field, Msg: msg}}
	}
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, bad("security.tls", "expected true, false or a block {ca_file, cert_file, key_file, server_name, insecure_skip_verify}")
			}
			if !b {
				return nil, nil
			}
			return &TLSOptions{}, nil
		}
		return nil, bad("security.tls", fmt.Sprintf("expected true, false or a block {ca_file, cert_file, key_file, server_name, insecure_skip_verify}, got %q", n.Value))
	case yaml.MappingNode:
		t := &TLSOptions{}
		var errs []driver.FieldError
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			for v.Kind == yaml.AliasNode && v.Alias != nil {
				v = v.Alias
			}
			field := "security.tls." + k.Value
			if seen[k.Value] {
				errs = append(errs, driver.FieldError{Field: field, Msg: "duplicate key"})
				continue
			}
			seen[k.Value] = true
			switch k.Value {
			case "ca_file", "cert_file", "key_file", "server_name":
				if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" || v.Value == "" {
					msg := "expected a file path"
					if k.Value == "server_name" {
						msg = "expected a host name"
					}
					errs = append(errs, driver.FieldError{Field: field, Msg: msg})
					continue
				}
				*map[string]*string{"ca_file": &t.CAFile, "cert_file": &t.CertFile, "key_file": &t.KeyFile, "server_name": &t.ServerName}[k.Value] = v.Value
			case "insecure_skip_verify":
				if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" || v.Decode(&t.InsecureSkipVerify) != nil {
					errs = append(errs, driver.FieldError{Field: field, Msg: "expected a boolean (true or false)"})
				}
			default:
				errs = append(errs, driver.FieldError{Field: field, Msg: "unknown field (valid: ca_file, cert_file, key_file, server_name, insecure_skip_verify)"})
			}
		}
		return t, errs
	}
	return nil, bad("security.tls", "expected true, false or a block {ca_file, cert_file, key_file, server_name, insecure_skip_verify}")
}
