package kafkadrv

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// kafkaURL returns the broker to test against (MQBENCH_KAFKA_URL, default
// kafka://127.0.0.1:9092). When it does not answer, the test is skipped, unless
// MQBENCH_REQUIRE_BROKERS=1, which makes it a failure.
func kafkaURL(t testing.TB) string { return drivertest.BrokerURL(t, "kafka") }

func unique(name string) string {
	return fmt.Sprintf("mqbench.test.%s.%d", name, time.Now().UnixNano())
}

func ptr[T any](v T) *T { return &v }

type kadmConfig = kadm.Config

func TestConformance(t *testing.T) {
	url := kafkaURL(t)
	for _, tc := range []struct {
		name   string
		opts   *Options
		shared bool
	}{
		{name: "acks-all", opts: &Options{}},
		{name: "acks-all-zstd-shared", opts: &Options{Compression: "zstd", Topic: TopicOptions{Partitions: 4}}, shared: true},
		{name: "acks-all-gzip-manual-commit", opts: &Options{Compression: "gzip", Consumer: ConsumerOptions{Commit: "manual-sync"}}},
		{name: "acks-1-lz4", opts: &Options{Acks: "1", Compression: "lz4", Linger: time.Millisecond}},
		{name: "acks-1-snappy-shared-earliest", opts: &Options{Acks: "1", Compression: "snappy", MaxInFlight: 1, Topic: TopicOptions{Partitions: 3}, Consumer: ConsumerOptions{Start: "earliest", Commit: "manual-sync"}}, shared: true},
		{name: "acks-0", opts: &Options{Acks: "0"}},
		{name: "acks-0-zstd-shared", opts: &Options{Acks: "0", Compression: "zstd", Topic: TopicOptions{Partitions: 2}}, shared: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Defaults()
			cfg := driver.Config{URL: url, Destination: unique(tc.name), Options: tc.opts, RunID: fmt.Sprintf("run-%s-%d", tc.name, time.Now().UnixNano())}
			if tc.shared {
				drivertest.RunShared(t, "kafka", cfg)
			} else {
				drivertest.Run(t, "kafka", cfg)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"kafka://127.0.0.1:1", "kafka://127.0.0.1:1,127.0.0.1:2"} {
		drivertest.Unreachable(t, "kafka", u, nil)
	}
}

// session is an opened and set-up driver with one started consumer and one publisher.
type session struct {
	d   *kafkaDriver
	c   *consumer
	p   driver.Publisher
	got atomic.Int64
}

func openSession(t *testing.T, url, topic string, o *Options) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d, err := Open(ctx, driver.Config{URL: url, Destination: topic, Options: o, RunID: fmt.Sprintf("%d", time.Now().UnixNano())})
	if err != nil {
		t.Fatal(err)
	}
	s := &session{d: d.(*kafkaDriver)}
	t.Cleanup(func() {
		if s.c != nil {
			s.c.Close()
		}
		if s.p != nil {
			s.p.Close()
		}
		_ = d.Teardown(context.Background())
		d.Close()
	})
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := d.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.c = c.(*consumer)
	if err := c.Start(ctx, func([]byte, time.Time) { s.got.Add(1) }); err != nil {
		t.Fatal(err)
	}
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.p = p
	return s
}

func (s *session) waitFor(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for s.got.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("received %d of %d messages", s.got.Load(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestCompressionReachesBroker proves that the configured codec is what the broker stores: the
// consumer reads the codec from the attributes of the record batches it fetched. The payload
// is compressible (franz-go sends a batch uncompressed when compressing does not shrink it).
func TestCompressionReachesBroker(t *testing.T) {
	url := kafkaURL(t)
	for _, codec := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		t.Run(codec, func(t *testing.T) {
			t.Parallel()
			o := &Options{Compression: codec, Linger: 2 * time.Millisecond}
			s := openSession(t, url, unique("codec-"+codec), o)
			ctx := context.Background()
			const n = 200
			var acks []driver.Ack
			for i := 0; i < n; i++ {
				v := []byte(strings.Repeat("mqbench compressible payload ", 20))
				binary.LittleEndian.PutUint64(v, uint64(i))
				a, err := s.p.Send(ctx, driver.Message{Value: v})
				if err != nil {
					t.Fatal(err)
				}
				acks = append(acks, a)
			}
			for _, a := range acks {
				if err := a.Wait(ctx); err != nil {
					t.Fatal(err)
				}
			}
			s.waitFor(t, n)
			got := s.c.Codecs()
			t.Logf("compression %s: received batches by codec %v", codec, got)
			if got[codec] != n || len(got) != 1 {
				t.Fatalf("compression %s: records by batch codec %v, want all %d %s", codec, got, n, codec)
			}
		})
	}
}

// TestPublishLatencyByAcks: an acknowledgement from the broker (acks all) takes longer than a
// write to the socket (acks 0). Medians over sequential send+wait round trips.
func TestPublishLatencyByAcks(t *testing.T) {
	url := kafkaURL(t)
	const n = 2000
	median := func(acks string) time.Duration {
		s := openSession(t, url, unique("latency-acks-"+acks), &Options{Acks: acks})
		ctx := context.Background()
		lat := make([]time.Duration, 0, n)
		v := make([]byte, 256)
		for i := 0; i < n+100; i++ {
			start := time.Now()
			a, err := s.p.Send(ctx, driver.Message{Value: v})
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			if i >= 100 { // warm-up
				lat = append(lat, time.Since(start))
			}
		}
		slices.Sort(lat)
		return lat[n/2]
	}
	m0, mAll := median("0"), median("all")
	t.Logf("median publish latency: acks 0 %v, acks all %v", m0, mAll)
	if mAll <= m0 {
		t.Errorf("median publish latency with acks all (%v) is not larger than with acks 0 (%v)", mAll, m0)
	}
}

// TestTeardown: a topic and group the run created are gone after Teardown; with keep the topic
// stays (the group still goes). An existing topic is neither re-created nor deleted.
func TestTeardown(t *testing.T) {
	url := kafkaURL(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, keep := range []bool{false, true} {
		topic := unique(fmt.Sprintf("teardown-keep-%v", keep))
		o := &Options{Topic: TopicOptions{Keep: keep, Partitions: 2, Configs: map[string]string{"retention.ms": "60000", "flush.messages": "1"}}}
		d, err := Open(ctx, driver.Config{URL: url, Destination: topic, Options: o, RunID: fmt.Sprintf("teardown-%v-%d", keep, time.Now().UnixNano())})
		if err != nil {
			t.Fatal(err)
		}
		kd := d.(*kafkaDriver)
		if err := d.Setup(ctx); err != nil {
			t.Fatal(err)
		}
		if !kd.topicCreated || !kd.groupCreated {
			t.Fatalf("Setup: topicCreated=%v groupCreated=%v, want both", kd.topicCreated, kd.groupCreated)
		}
		tds, err := kd.adm.ListTopics(ctx, topic)
		if err != nil || len(tds[topic].Partitions) != 2 {
			t.Fatalf("topic after Setup: %v %v, want 2 partitions", tds, err)
		}
		cfgs, err := kd.adm.DescribeTopicConfigs(ctx, topic)
		if err != nil {
			t.Fatal(err)
		}
		// flush.messages 1: the commit-log study's fsync per message (kafka-*-flush scenarios).
		for k, v := range o.Topic.Configs {
			if c, err := cfgs.On(topic, nil); err != nil || !slices.ContainsFunc(c.Configs, func(c kadmConfig) bool { return c.Key == k && c.Value != nil && *c.Value == v }) {
				t.Errorf("topic config %s=%s not applied: %v", k, v, err)
			}
		}
		if ok, err := kd.GroupExists(ctx); err != nil || !ok {
			t.Fatalf("group after Setup: exists=%v err=%v", ok, err)
		}
		if err := d.Teardown(ctx); err != nil {
			t.Fatal(err)
		}
		exists, _, err := kd.DestinationExists(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if exists != keep {
			t.Errorf("keep=%v: topic exists after Teardown = %v", keep, exists)
		}
		if ok, err := kd.GroupExists(ctx); err != nil || ok {
			t.Errorf("keep=%v: group exists after Teardown = %v (err %v), want deleted", keep, ok, err)
		}
		d.Close()
		if !keep {
			continue
		}
		// The kept topic now exists: a second run uses it and leaves it alone.
		o2 := &Options{Topic: TopicOptions{Create: ptr(false)}}
		d2, err := Open(ctx, driver.Config{URL: url, Destination: topic, Options: o2, RunID: "second"})
		if err != nil {
			t.Fatal(err)
		}
		kd2 := d2.(*kafkaDriver)
		if err := d2.Setup(ctx); err != nil {
			t.Fatal(err)
		}
		if kd2.topicCreated {
			t.Errorf("second Setup claims it created the existing topic")
		}
		if err := d2.Teardown(ctx); err != nil {
			t.Fatal(err)
		}
		if exists, _, _ := kd2.DestinationExists(ctx); !exists {
			t.Errorf("Teardown deleted a topic it did not create")
		}
		if _, err := kd2.adm.DeleteTopic(ctx, topic); err != nil {
			t.Errorf("cleanup: %v", err)
		}
		d2.Close()
	}

	// create: false and no topic: a clear error.
	o := &Options{Topic: TopicOptions{Create: ptr(false)}}
	d, err := Open(ctx, driver.Config{URL: url, Destination: unique("absent"), Options: o})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Setup(ctx); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Setup with create: false on an absent topic: %v, want 'does not exist'", err)
	}
}

// TestLateConsumer: with start latest, records produced after Setup but before the consumer
// started are delivered (the group's start position was fixed at Setup), and a second run
// with earliest reads them all again.
func TestStartPositions(t *testing.T) {
	url := kafkaURL(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	topic := unique("start")
	o := &Options{Topic: TopicOptions{Partitions: 2, Keep: true}}
	d, err := Open(ctx, driver.Config{URL: url, Destination: topic, Options: o, RunID: fmt.Sprintf("start-%d", time.Now().UnixNano())})
	if err != nil {
		t.Fatal(err)
	}
	kd := d.(*kafkaDriver)
	defer func() {
		kd.adm.DeleteTopic(context.Background(), topic)
		d.Close()
	}()
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	send := func(n int) {
		for i := 0; i < n; i++ {
			a, err := p.Send(ctx, driver.Message{Value: []byte("early")})
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Wait(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	send(50) // before any consumer exists
	var got atomic.Int64
	c, err := d.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx, func([]byte, time.Time) { got.Add(1) }); err != nil {
		t.Fatal(err)
	}
	send(50)
	waitCount(t, &got, 100)
	c.Close()
	if err := d.Teardown(ctx); err != nil {
		t.Fatal(err)
	}

	// A new group reading from the start sees all 100.
	o2 := &Options{Consumer: ConsumerOptions{Start: "earliest"}}
	d2, err := Open(ctx, driver.Config{URL: url, Destination: topic, Options: o2, RunID: fmt.Sprintf("start2-%d", time.Now().UnixNano())})
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	if err := d2.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	defer d2.Teardown(context.Background())
	var got2 atomic.Int64
	c2, err := d2.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if err := c2.Start(ctx, func([]byte, time.Time) { got2.Add(1) }); err != nil {
		t.Fatal(err)
	}
	waitCount(t, &got2, 100)
	time.Sleep(200 * time.Millisecond)
	if got2.Load() != 100 {
		t.Errorf("earliest: got %d records, want 100", got2.Load())
	}
}

func waitCount(t *testing.T, n *atomic.Int64, want int64) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for n.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("received %d of %d", n.Load(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSASLWrongPassword needs a broker with a SASL listener: MQBENCH_KAFKA_SASL_URL, with
// MQBENCH_KAFKA_SASL_MECHANISM (default PLAIN), MQBENCH_KAFKA_SASL_USER (default mqbench) and,
// optionally, MQBENCH_KAFKA_SASL_PASSWORD (the right password: then the conformance test also
// runs over SASL).
func TestSASLWrongPassword(t *testing.T) {
	url := os.Getenv("MQBENCH_KAFKA_SASL_URL")
	if url == "" {
		t.Skip("MQBENCH_KAFKA_SASL_URL is not set (a Kafka listener with SASL); see TestSASLWrongPassword")
	}
	mech := os.Getenv("MQBENCH_KAFKA_SASL_MECHANISM")
	if mech == "" {
		mech = "PLAIN"
	}
	user := os.Getenv("MQBENCH_KAFKA_SASL_USER")
	if user == "" {
		user = "mqbench"
	}
	const wrong = "wrong-pw-never-printed-7f3a"
	t.Setenv("MQBENCH_TEST_KAFKA_USER", user)
	t.Setenv("MQBENCH_TEST_KAFKA_PASSWORD", wrong)
	o := &Options{Security: SecurityOptions{SASL: &SASLOptions{Mechanism: mech, UsernameEnv: "MQBENCH_TEST_KAFKA_USER", PasswordEnv: "MQBENCH_TEST_KAFKA_PASSWORD"}}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	d, err := Open(ctx, driver.Config{URL: url, Destination: "mqbench.sasl", Options: o})
	if err == nil {
		d.Close()
		t.Fatal("Open with a wrong password succeeded")
	}
	t.Logf("wrong password after %v: %v", time.Since(start), err)
	var ue *driver.UnreachableError
	if errors.As(err, &ue) {
		t.Errorf("authentication failure reported as unreachable: %v", err)
	}
	if !strings.Contains(err.Error(), "authentication failed") || !strings.Contains(err.Error(), user) {
		t.Errorf("error %q does not say authentication failed for user %s", err, user)
	}
	if strings.Contains(err.Error(), wrong) {
		t.Errorf("error leaks the password: %v", err)
	}
	if right := os.Getenv("MQBENCH_KAFKA_SASL_PASSWORD"); right != "" {
		t.Setenv("MQBENCH_TEST_KAFKA_PASSWORD", right)
		d, err := Open(ctx, driver.Config{URL: url, Destination: "mqbench.sasl", Options: o})
		if err != nil {
			t.Fatalf("Open with the right password: %v", err)
		}
		d.Close()
		o.Defaults()
		drivertest.Run(t, "kafka", driver.Config{URL: url, Destination: unique("sasl"), Options: o})
	}
}

func TestSASLMissingEnv(t *testing.T) {
	o := &Options{Security: SecurityOptions{SASL: &SASLOptions{Mechanism: "scram-sha-512", UsernameEnv: "MQBENCH_TEST_UNSET_USER_VAR", PasswordEnv: "MQBENCH_TEST_UNSET_PW_VAR"}}}
	_, err := Open(context.Background(), driver.Config{URL: "kafka://127.0.0.1:1", Destination: "x", Options: o})
	if err == nil || !strings.Contains(err.Error(), "MQBENCH_TEST_UNSET_USER_VAR") {
		t.Errorf("got %v, want an error naming the unset variable", err)
	}
}

func TestOptions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		yaml   string
		fields []string // the fields with errors, in order
		check  func(*testing.T, *Options)
	}{
		{name: "defaults", yaml: `{}`, check: func(t *testing.T, o *Options) {
			if o.Acks != "all" || !*o.Idempotent || o.Compression != "none" || o.MaxInFlight != 5 || o.Topic.Partitions != 1 ||
				o.Topic.ReplicationFactor != 1 || !*o.Topic.Create || o.Consumer.Start != "latest" || o.Consumer.Commit != "auto" ||
				o.Consumer.FetchMaxWait != 10*time.Millisecond || o.Consumer.FetchMinBytes != 1 || o.Linger != 0 {
				t.Errorf("defaults: %+v", o)
			}
			if o.AckMode() != "kafka-acks-all" {
				t.Errorf("AckMode %q", o.AckMode())
			}
		}},
		{name: "acks int 1", yaml: `{acks: 1}`, check: func(t *testing.T, o *Options) {
			if o.Acks != "1" || *o.Idempotent || o.AckMode() != "kafka-acks-1" {
				t.Errorf("acks %q idempotent %v mode %q", o.Acks, *o.Idempotent, o.AckMode())
			}
		}},
		{name: "acks int 0", yaml: `{acks: 0}`, check: func(t *testing.T, o *Options) {
			if o.Acks != "0" || o.AckMode() != "kafka-acks-0 (written to socket, no broker ack)" {
				t.Errorf("acks %q mode %q", o.Acks, o.AckMode())
			}
		}},
		{name: "acks -1", yaml: `{acks: -1}`, check: func(t *testing.T, o *Options) {
			if o.Acks != "all" {
				t.Errorf("acks %q", o.Acks)
			}
		}},
		{name: "acks string all", yaml: `{acks: "all"}`},
		{name: "acks bad", yaml: `{acks: 2}`, fields: []string{"acks"}},
		{name: "idempotent needs acks all", yaml: `{acks: "1", idempotent: true}`, fields: []string{"idempotent"}},
		{name: "idempotent in flight", yaml: `{max_in_flight: 3}`, fields: []string{"max_in_flight"}},
		{name: "not idempotent in flight", yaml: `{idempotent: false, max_in_flight: 1}`},
		{name: "tls true", yaml: `{security: {tls: true}}`, check: func(t *testing.T, o *Options) {
			if o.Security.TLS == nil || o.Security.TLS.CAFile != "" {
				t.Errorf("tls %+v", o.Security.TLS)
			}
		}},
		{name: "tls false", yaml: `{security: {tls: false}}`, check: func(t *testing.T, o *Options) {
			if o.Security.TLS != nil {
				t.Errorf("tls %+v", o.Security.TLS)
			}
		}},
		// Files are read at validate time: a missing CA file is the scenario's error.
		{name: "tls block, missing CA file", yaml: `{security: {tls: {ca_file: /nonexistent/ca.pem, insecure_skip_verify: true, server_name: kafka.local}}}`,
			fields: []string{"security.tls.ca_file"}},
		{name: "tls client certificate without its key", yaml: `{security: {tls: {cert_file: /nonexistent/client.pem}}}`,
			fields: []string{"security.tls.key_file"}},
		{name: "tls block", yaml: `{security: {tls: {insecure_skip_verify: true, server_name: kafka.local}}}`, check: func(t *testing.T, o *Options) {
			if o.Security.TLS == nil || o.Security.TLS.ServerName != "kafka.local" || !o.Security.TLS.InsecureSkipVerify {
				t.Errorf("tls %+v", o.Security.TLS)
			}
		}},
		{name: "tls bad", yaml: `{security: {tls: {ca: x, insecure_skip_verify: maybe}}}`, fields: []string{"security.tls.ca", "security.tls.insecure_skip_verify"}},
		{name: "sasl", yaml: `{security: {sasl: {mechanism: scram-sha-256, username_env: U, password_env: P}}}`, check: func(t *testing.T, o *Options) {
			if o.Security.SASL.Mechanism != "SCRAM-SHA-256" {
				t.Errorf("mechanism %q", o.Security.SASL.Mechanism)
			}
		}},
		{name: "commit interval default", yaml: `{}`, check: func(t *testing.T, o *Options) {
			if o.Consumer.CommitInterval != 5*time.Second {
				t.Errorf("commit_interval %v, want 5s", o.Consumer.CommitInterval)
			}
		}},
		{name: "commit interval 10s", yaml: `{consumer: {commit_interval: 10s}}`, check: func(t *testing.T, o *Options) {
			if o.Consumer.CommitInterval != 10*time.Second {
				t.Errorf("commit_interval %v, want 10s", o.Consumer.CommitInterval)
			}
		}},
		{name: "commit interval too short", yaml: `{consumer: {commit_interval: 10ms}}`, fields: []string{"consumer.commit_interval"}},
		{name: "commit interval with manual-sync", yaml: `{consumer: {commit: manual-sync, commit_interval: 10s}}`, fields: []string{"consumer.commit_interval"}},
		{name: "manual-sync has no interval", yaml: `{consumer: {commit: manual-sync}}`, check: func(t *testing.T, o *Options) {
			if o.Consumer.CommitInterval != 0 {
				t.Errorf("commit_interval %v, want 0", o.Consumer.CommitInterval)
			}
		}},
		{name: "many errors sorted", yaml: `{acks: x, compression: brotli, linger: -1s, request_timeout: 1ms, batch_bytes: -1,
			topic: {partitions: -1, replication_factor: -2},
			consumer: {start: middle, commit: sometimes, fetch_max_wait: 100us, fetch_min_bytes: -1},
			security: {sasl: {mechanism: GSSAPI}}}`,
			fields: []string{"acks", "batch_bytes", "compression", "consumer.commit", "consumer.fetch_max_wait", "consumer.fetch_min_bytes",
				"consumer.start", "linger", "request_timeout", "security.sasl.mechanism", "security.sasl.password_env",
				"security.sasl.username_env", "topic.partitions", "topic.replication_factor"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := decodeYAML(t, tc.yaml)
			o.Defaults()
			o.Defaults() // idempotent
			errs := o.Validate()
			var fields []string
			for _, e := range errs {
				fields = append(fields, e.Field)
			}
			if !slices.Equal(fields, tc.fields) {
				t.Fatalf("error fields %v, want %v (errors %v)", fields, tc.fields, errs)
			}
			if tc.check != nil {
				tc.check(t, o)
			}
		})
	}
}

// decodeYAML decodes like the scenario parser does for these fields (a plain yaml.v3 decode
// fills yaml.Node fields the same way).
func decodeYAML(t *testing.T, src string) *Options {
	t.Helper()
	var o Options
	if err := yaml.Unmarshal([]byte(src), &o); err != nil {
		t.Fatal(err)
	}
	return &o
}

func TestParseBrokers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "kafka://127.0.0.1:9092", want: []string{"127.0.0.1:9092"}},
		{in: "kafka://a:1,b:2", want: []string{"a:1", "b:2"}},
		{in: "kafka://a:1, kafka://b", want: []string{"a:1", "b:9092"}},
		{in: "a,b:9093/", want: []string{"a:9092", "b:9093"}},
		{in: "KAFKA://[::1]:9092", want: []string{"[::1]:9092"}},
		{in: "", err: "empty"},
		{in: "http://a:1", err: "scheme"},
		{in: "kafka://user:secret@a:1", err: "credentials"},
	} {
		got, err := parseBrokers(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseBrokers(%q) = %v, %v; want error with %q", tc.in, got, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("parseBrokers error leaks the password: %v", err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("parseBrokers(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "a b", "a/b", strings.Repeat("x", 250), ".."} {
		if checkTopicName(bad) == nil {
			t.Errorf("checkTopicName(%q) accepted", bad)
		}
	}
}

func BenchmarkPublishConsume1KB(b *testing.B) {
	url := kafkaURL(b)
	for _, tc := range []struct {
		name string
		opts *Options
	}{
		{"acks-all", &Options{}},
		{"acks-1", &Options{Acks: "1"}},
		{"acks-0", &Options{Acks: "0"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			tc.opts.Defaults()
			drivertest.Benchmark(b, "kafka", driver.Config{URL: url, Destination: unique("bench"), Options: tc.opts}, 1024)
		})
	}
}

// TestLargeMessages: 1 MiB payloads (the benchmark's 1 MB cell) need batch_bytes above Kafka's
// 1000012-byte default; a topic the run creates then gets max.message.bytes to match.
func TestLargeMessages(t *testing.T) {
	url := kafkaURL(t)
	t.Parallel()
	s := openSession(t, url, unique("large"), &Options{BatchBytes: 2 << 20})
	ctx := context.Background()
	var acks []driver.Ack
	for i := 0; i < 20; i++ {
		a, err := s.p.Send(ctx, driver.Message{Value: make([]byte, 1<<20)})
		if err != nil {
			t.Fatal(err)
		}
		acks = append(acks, a)
	}
	for i, a := range acks {
		if err := a.Wait(ctx); err != nil {
			t.Fatalf("1 MiB message %d: %v", i, err)
		}
	}
	s.waitFor(t, 20)
}

// TestCommitInterval: commit: auto commits the polled offsets every commit_interval. Once a
// consumer received everything, the group's committed offset reaches the end within a short
// interval, and stays at nothing committed with a long one (whose first tick is a minute
// away), so the option is what decides.
func TestCommitInterval(t *testing.T) {
	url := kafkaURL(t)
	t.Parallel()
	const n = 200
	for _, tc := range []struct {
		interval  time.Duration
		committed bool
	}{
		{500 * time.Millisecond, true},
		{time.Minute, false},
	} {
		t.Run(tc.interval.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			o := &Options{Consumer: ConsumerOptions{CommitInterval: tc.interval}}
			o.Defaults()
			topic := unique("commit-interval")
			d, err := Open(ctx, driver.Config{URL: url, Destination: topic, Options: o, RunID: fmt.Sprintf("commit-interval-%d", time.Now().UnixNano())})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if err := d.Setup(ctx); err != nil {
				t.Fatal(err)
			}
			defer d.Teardown(context.Background())
			kd := d.(*kafkaDriver)
			c, err := d.NewConsumer(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var got atomic.Int64
			if err := c.Start(ctx, func([]byte, time.Time) { got.Add(1) }); err != nil {
				t.Fatal(err)
			}
			p, err := d.NewPublisher(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			for i := 0; i < n; i++ {
				a, err := p.Send(ctx, driver.Message{Value: []byte(fmt.Sprint(i))})
				if err != nil {
					t.Fatal(err)
				}
				if err := a.Wait(ctx); err != nil {
					t.Fatal(err)
				}
			}
			deadline := time.Now().Add(20 * time.Second)
			for got.Load() < n && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if got.Load() < n {
				t.Fatalf("received %d of %d", got.Load(), n)
			}
			time.Sleep(2 * time.Second) // four short intervals
			offs, err := kd.adm.FetchOffsets(ctx, kd.group)
			if err != nil {
				t.Fatal(err)
			}
			var committed int64
			offs.Each(func(o kadm.OffsetResponse) { committed += o.At })
			t.Logf("commit_interval %v: committed offsets sum to %d of %d records", tc.interval, committed, n)
			if (committed == n) != tc.committed {
				t.Errorf("commit_interval %v: committed %d of %d 2 s after the last receipt, want all committed: %v", tc.interval, committed, n, tc.committed)
			}
		})
	}
}
