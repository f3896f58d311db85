package rabbitdrv

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// rabbitURL returns the broker to test against (MQBENCH_RABBITMQ_URL, default
// amqp://guest:guest@127.0.0.1:5672/). When it does not answer, the test is skipped, unless
// MQBENCH_REQUIRE_BROKERS=1, which makes it a failure.
func rabbitURL(t testing.TB) string { return drivertest.BrokerURL(t, "rabbitmq") }

func unique(name string) string {
	return fmt.Sprintf("mqbench.test.%s.%d", name, time.Now().UnixNano())
}

func ptr[T any](v T) *T { return &v }

func TestConformance(t *testing.T) {
	url := rabbitURL(t)
	for _, tc := range []struct {
		name   string
		opts   *Options
		shared bool
	}{
		{name: "classic", opts: &Options{}},
		{name: "classic-shared", opts: &Options{}, shared: true},
		{name: "classic-no-confirms-transient", opts: &Options{Confirms: ptr(false), Persistent: ptr(false), Durable: ptr(false)}},
		{name: "classic-auto-ack-prefetch-10", opts: &Options{AutoAck: true, Prefetch: 10}, shared: true},
		{name: "classic-topic-exchange-mandatory", opts: &Options{Exchange: "mqbench.test.x." + fmt.Sprint(time.Now().UnixNano()), ExchangeType: "topic", RoutingKey: "bench.key", Mandatory: true}},
		// PerfTest parity (the AMQP 1.0 study's 0-9-1 run): mandatory, one ack per prefetch.
		{name: "classic-mandatory-ack-every-prefetch", opts: &Options{Mandatory: true, Prefetch: 200, AckEvery: 200}},
		{name: "quorum", opts: &Options{QueueType: "quorum"}},
		{name: "quorum-shared-prefetch-1", opts: &Options{QueueType: "quorum", Prefetch: 1}, shared: true},
		{name: "quorum-no-confirms", opts: &Options{QueueType: "quorum", Confirms: ptr(false)}},
		{name: "stream", opts: &Options{QueueType: "stream"}},
		{name: "stream-no-confirms", opts: &Options{QueueType: "stream", Confirms: ptr(false), Prefetch: 50}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Defaults()
			cfg := driver.Config{URL: url, Destination: unique(tc.name), Options: tc.opts, RunID: fmt.Sprintf("run-%s-%d", tc.name, time.Now().UnixNano())}
			if tc.shared {
				drivertest.RunShared(t, "rabbitmq", cfg)
			} else {
				drivertest.Run(t, "rabbitmq", cfg)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"amqp://127.0.0.1:1/", "amqp://bench:secret@127.0.0.1:1/vh"} {
		drivertest.Unreachable(t, "rabbitmq", u, nil)
	}
}

// TestStreamFanOut documents stream semantics: every consumer reads every message.
func TestStreamFanOut(t *testing.T) {
	url := rabbitURL(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o := &Options{QueueType: "stream"}
	d, err := Open(ctx, driver.Config{URL: url, Destination: unique("stream-fanout"), Options: o, RunID: "fanout"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	defer d.Teardown(context.Background())
	var got [2]atomic.Int64
	for i := range got {
		c, err := d.NewConsumer(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Start(ctx, func([]byte, time.Time) { got[i].Add(1) }); err != nil {
			t.Fatal(err)
		}
	}
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := 0; i < 100; i++ {
		a, err := p.Send(ctx, driver.Message{Value: []byte("x")})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 10*time.Second, func() bool { return got[0].Load() >= 100 && got[1].Load() >= 100 })
}

// TestMandatoryUnroutable: with mandatory, a message no queue receives fails its Ack with the
// broker's reply; routable ones around it succeed.
func TestMandatoryUnroutable(t *testing.T) {
	url := rabbitURL(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ex := unique("mandatory-x")
	o := &Options{Exchange: ex, ExchangeType: "direct", RoutingKey: "routed", Mandatory: true}
	d, err := Open(ctx, driver.Config{URL: url, Destination: unique("mandatory"), Options: o, RunID: "mandatory"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	defer d.Teardown(context.Background())
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	routed := p.(*publisher)
	// A second publisher on the same exchange with a routing key that no queue is bound to.
	p2, err := d.NewPublisher(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	unroutable := p2.(*publisher)
	unroutable.key = "nowhere"

	var acks []driver.Ack
	var want []bool // true = should succeed
	for i := 0; i < 200; i++ {
		pub, ok := routed, true
		if i%3 == 1 {
			pub, ok = unroutable, false
		}
		a, err := pub.Send(ctx, driver.Message{Value: []byte{byte(i)}})
		if err != nil {
			t.Fatal(err)
		}
		acks, want = append(acks, a), append(want, ok)
	}
	for i, a := range acks {
		err := a.Wait(ctx)
		switch {
		case want[i] && err != nil:
			t.Errorf("message %d (routable): %v", i, err)
		case !want[i] && err == nil:
			t.Errorf("message %d (unroutable): Ack succeeded, want an error", i)
		case !want[i] && !strings.Contains(err.Error(), "NO_ROUTE"):
			t.Errorf("message %d (unroutable): %v, want NO_ROUTE", i, err)
		}
	}
}

// TestPublishLatencyByConfirms: waiting for a publisher confirm takes longer than a publish
// without confirms (whose Ack is nil: publish latency is the Send call). Medians over 2000
// sequential sends.
func TestPublishLatencyByConfirms(t *testing.T) {
	url := rabbitURL(t)
	const n = 2000
	median := func(confirms bool) time.Duration {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		o := &Options{Confirms: ptr(confirms)}
		d, err := Open(ctx, driver.Config{URL: url, Destination: unique(fmt.Sprintf("latency-confirms-%v", confirms)), Options: o})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if err := d.Setup(ctx); err != nil {
			t.Fatal(err)
		}
		defer d.Teardown(context.Background())
		p, err := d.NewPublisher(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		lat := make([]time.Duration, 0, n)
		v := make([]byte, 256)
		for i := 0; i < n+100; i++ {
			start := time.Now()
			a, err := p.Send(ctx, driver.Message{Value: v})
			if err != nil {
				t.Fatal(err)
			}
			if (a == nil) == confirms {
				t.Fatalf("confirms %v: Send returned Ack %v", confirms, a)
			}
			if a != nil {
				if err := a.Wait(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if i >= 100 {
				lat = append(lat, time.Since(start))
			}
		}
		slices.Sort(lat)
		return lat[n/2]
	}
	off, on := median(false), median(true)
	t.Logf("median publish latency: confirms off %v (the Send call), confirms on %v", off, on)
	if on <= off {
		t.Errorf("median publish latency with confirms (%v) is not larger than without (%v)", on, off)
	}
}

// TestTeardown: a queue (and exchange) the run declared are gone after Teardown, and kept with
// keep; an existing queue is used and left alone.
func TestTeardown(t *testing.T) {
	url := rabbitURL(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, keep := range []bool{false, true} {
		q := unique(fmt.Sprintf("teardown-keep-%v", keep))
		ex := q + ".x"
		o := &Options{QueueType: "quorum", Exchange: ex, ExchangeType: "fanout", Keep: keep}
		d, err := Open(ctx, driver.Config{URL: url, Destination: q, Options: o, RunID: "teardown"})
		if err != nil {
			t.Fatal(err)
		}
		rd := d.(*rabbitDriver)
		if err := d.Setup(ctx); err != nil {
			t.Fatal(err)
		}
		if !rd.queueCreated || !rd.exchangeCreated {
			t.Fatalf("Setup: queueCreated=%v exchangeCreated=%v, want both", rd.queueCreated, rd.exchangeCreated)
		}
		if err := d.Teardown(ctx); err != nil {
			t.Fatal(err)
		}
		qe, _ := rd.queueExists()
		xe, _ := rd.exchangeExists()
		if qe != keep || xe != keep {
			t.Errorf("keep=%v: after Teardown queue exists %v, exchange exists %v", keep, qe, xe)
		}
		if keep {
			// A second run on the kept queue: create false works, nothing is deleted.
			o2 := &Options{Create: ptr(false), QueueType: "quorum", Exchange: ex, ExchangeType: "fanout"}
			d2, err := Open(ctx, driver.Config{URL: url, Destination: q, Options: o2, RunID: "teardown2"})
			if err != nil {
				t.Fatal(err)
			}
			rd2 := d2.(*rabbitDriver)
			if err := d2.Setup(ctx); err != nil {
				t.Fatal(err)
			}
			if rd2.queueCreated || rd2.exchangeCreated {
				t.Errorf("second Setup claims it declared the existing queue/exchange")
			}
			if err := d2.Teardown(ctx); err != nil {
				t.Fatal(err)
			}
			if qe, _ := rd2.queueExists(); !qe {
				t.Errorf("Teardown deleted a queue it did not declare")
			}
			_ = rd2.withChannel(func(ch *amqp.Channel) error {
				_, err := ch.QueueDelete(q, false, false, false)
				return err
			})
			_ = rd2.withChannel(func(ch *amqp.Channel) error { return ch.ExchangeDelete(ex, false, false) })
			d2.Close()
		}
		d.Close()
	}

	o := &Options{Create: ptr(false)}
	d, err := Open(ctx, driver.Config{URL: url, Destination: unique("absent"), Options: o})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Setup(ctx); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Setup with create: false on an absent queue: %v, want 'does not exist'", err)
	}
}

// TestWrongCredentials: refused credentials are a plain error that says authentication failed
// for the user, never "unreachable", never the password; from the URL or from password_env.
func TestWrongCredentials(t *testing.T) {
	url := rabbitURL(t)
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	user := u.User.Username()
	const wrong = "wrong-pw-never-printed-9c1e"
	check := func(t *testing.T, err error) {
		t.Helper()
		if err == nil {
			t.Fatal("Open with a wrong password succeeded")
		}
		t.Logf("wrong password: %v", err)
		var ue *driver.UnreachableError
		if errors.As(err, &ue) {
			t.Errorf("authentication failure reported as unreachable: %v", err)
		}
		if !strings.Contains(err.Error(), "authentication failed") || !strings.Contains(err.Error(), fmt.Sprintf("%q", user)) {
			t.Errorf("error %q does not say authentication failed for user %q", err, user)
		}
		if strings.Contains(err.Error(), wrong) {
			t.Errorf("error leaks the password: %v", err)
		}
	}
	t.Run("url", func(t *testing.T) {
		bad := *u
		bad.User = neturl.UserPassword(user, wrong)
		start := time.Now()
		_, err := Open(context.Background(), driver.Config{URL: bad.String(), Destination: "x", Options: &Options{}})
		check(t, err)
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("took %v", el)
		}
	})
	t.Run("password_env", func(t *testing.T) {
		t.Setenv("MQBENCH_TEST_RABBITMQ_PASSWORD", wrong)
		_, err := Open(context.Background(), driver.Config{URL: url, Destination: "x", Options: &Options{PasswordEnv: "MQBENCH_TEST_RABBITMQ_PASSWORD"}})
		check(t, err)
	})
	t.Run("password_env unset", func(t *testing.T) {
		_, err := Open(context.Background(), driver.Config{URL: url, Destination: "x", Options: &Options{PasswordEnv: "MQBENCH_TEST_UNSET_PASSWORD_VAR"}})
		if err == nil || !strings.Contains(err.Error(), "MQBENCH_TEST_UNSET_PASSWORD_VAR") {
			t.Errorf("got %v, want an error naming the variable", err)
		}
	})
}

func TestOptions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		yaml   string
		fields []string
		check  func(*testing.T, *Options)
	}{
		{name: "defaults", yaml: `{}`, check: func(t *testing.T, o *Options) {
			if o.QueueType != "classic" || !*o.Durable || !*o.Persistent || !*o.Confirms || !*o.Create || o.Prefetch != 200 ||
				o.AutoAck || o.Mandatory || o.Exchange != "" || o.ExchangeType != "" || o.AckMode() != "publisher-confirm" {
				t.Errorf("defaults: %+v", o)
			}
		}},
		{name: "no confirms", yaml: `{confirms: false}`, check: func(t *testing.T, o *Options) {
			if o.AckMode() != "none" {
				t.Errorf("AckMode %q", o.AckMode())
			}
		}},
		{name: "exchange default type", yaml: `{exchange: bench}`, check: func(t *testing.T, o *Options) {
			if o.ExchangeType != "direct" {
				t.Errorf("exchange_type %q", o.ExchangeType)
			}
		}},
		{name: "quorum not durable", yaml: `{queue_type: quorum, durable: false}`, fields: []string{"durable"}},
		{name: "stream auto ack", yaml: `{queue_type: stream, auto_ack: true}`, fields: []string{"auto_ack"}},
		{name: "mandatory without confirms", yaml: `{mandatory: true, confirms: false}`, fields: []string{"mandatory"}},
		{name: "many errors sorted", yaml: `{queue_type: lazy, exchange_type: headers, prefetch: 70000}`,
			fields: []string{"exchange_type", "prefetch", "queue_type"}},
		{name: "bad exchange type", yaml: `{exchange: x, exchange_type: headers}`, fields: []string{"exchange_type"}},
		{name: "ack_every default half the prefetch", yaml: `{prefetch: 50}`, check: func(t *testing.T, o *Options) {
			if o.AckEvery != 25 {
				t.Errorf("ack_every %d, want 25", o.AckEvery)
			}
		}},
		{name: "ack_every prefetch 1", yaml: `{prefetch: 1}`, check: func(t *testing.T, o *Options) {
			if o.AckEvery != 1 {
				t.Errorf("ack_every %d, want 1", o.AckEvery)
			}
		}},
		{name: "ack_every as the prefetch", yaml: `{prefetch: 200, ack_every: 200}`},
		{name: "ack_every above the prefetch", yaml: `{prefetch: 200, ack_every: 201}`, fields: []string{"ack_every"}},
		{name: "ack_every negative", yaml: `{ack_every: -1}`, fields: []string{"ack_every"}},
		{name: "ack_every with auto_ack", yaml: `{auto_ack: true, ack_every: 7}`, fields: []string{"ack_every"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o Options
			if err := yaml.Unmarshal([]byte(tc.yaml), &o); err != nil {
				t.Fatal(err)
			}
			o.Defaults()
			o.Defaults()
			var fields []string
			for _, e := range o.Validate() {
				fields = append(fields, e.Field)
			}
			if !slices.Equal(fields, tc.fields) {
				t.Fatalf("error fields %v, want %v", fields, tc.fields)
			}
			if tc.check != nil {
				tc.check(t, &o)
			}
		})
	}
	// Routing key and the default exchange.
	if _, err := Open(context.Background(), driver.Config{URL: "amqp://127.0.0.1:1/", Destination: "q", Options: &Options{RoutingKey: "other"}}); err == nil ||
		!strings.Contains(err.Error(), "routing_key") {
		t.Errorf("routing_key with the default exchange: %v", err)
	}
	if got := addrOf(amqp.URI{Scheme: "amqp", Host: "h", Port: 5672, Vhost: "/"}); got != "amqp://h:5672/" {
		t.Errorf("addrOf = %q", got)
	}
	if got := addrOf(amqp.URI{Scheme: "amqps", Host: "h", Port: 5671, Vhost: "a/b"}); got != "amqps://h:5671/a%2Fb" {
		t.Errorf("addrOf = %q", got)
	}
}

func waitFor(t *testing.T, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func BenchmarkPublishConsume1KB(b *testing.B) {
	url := rabbitURL(b)
	for _, tc := range []struct {
		name string
		opts *Options
	}{
		{"classic-confirms", &Options{}},
		{"classic-no-confirms", &Options{Confirms: ptr(false)}},
		{"classic-no-confirms-auto-ack", &Options{Confirms: ptr(false), AutoAck: true}},
		{"quorum-confirms", &Options{QueueType: "quorum"}},
		{"stream-confirms", &Options{QueueType: "stream"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			tc.opts.Defaults()
			drivertest.Benchmark(b, "rabbitmq", driver.Config{URL: url, Destination: unique("bench"), Options: tc.opts}, 1024)
		})
	}
}

// TestCloseAcknowledgesDelivered: a consumer closed mid-stream acknowledges what it delivered,
// so a consumer that takes over receives exactly the rest (no duplicates, nothing lost).
func TestCloseAcknowledgesDelivered(t *testing.T) {
	url := rabbitURL(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := Open(ctx, driver.Config{URL: url, Destination: unique("takeover"), Options: &Options{Prefetch: 50}, RunID: "takeover"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	defer d.Teardown(context.Background())
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const n = 2000
	for i := 0; i < n; i++ {
		a, err := p.Send(ctx, driver.Message{Value: []byte(fmt.Sprint(i))})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	seen := map[string]int{}
	record := func(v []byte, _ time.Time) {
		mu.Lock()
		seen[string(v)]++
		mu.Unlock()
	}
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(seen)
	}
	a, err := d.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(ctx, func(v []byte, at time.Time) {
		record(v, at)
		time.Sleep(50 * time.Microsecond) // leave deliveries waiting in the prefetch window
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, func() bool { return count() >= 300 })
	a.Close()
	first := count()
	b, err := d.NewConsumer(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Start(ctx, record); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, func() bool { return count() >= n })
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	dups := 0
	for _, c := range seen {
		if c > 1 {
			dups++
		}
	}
	t.Logf("first consumer delivered %d before Close; %d distinct in total, %d duplicated", first, len(seen), dups)
	if len(seen) != n || dups > 0 {
		t.Errorf("got %d distinct messages (want %d), %d delivered twice", len(seen), n, dups)
	}
}

// TestAckEvery: one basic.ack covers at most ack_every deliveries. A backlog is consumed by a
// busy consumer: with ack_every 1 every delivery is acknowledged by itself (n acks); with
// ack_every = prefetch (PerfTest's --multi-ack-every) at least n/ack_every acks go and, with
// the 1 ms idle ack when the window momentarily runs dry, still far fewer than with 1.
func TestAckEvery(t *testing.T) {
	url := rabbitURL(t)
	t.Parallel()
	const n = 2000
	for _, tc := range []struct {
		ackEvery         int
		minAcks, maxAcks uint64
	}{
		{ackEvery: 1, minAcks: n, maxAcks: n},
		{ackEvery: 200, minAcks: n / 200, maxAcks: n / 10},
	} {
		t.Run(fmt.Sprint(tc.ackEvery), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			o := &Options{Prefetch: 200, AckEvery: tc.ackEvery}
			o.Defaults()
			d, err := Open(ctx, driver.Config{URL: url, Destination: unique(fmt.Sprintf("ack-every-%d", tc.ackEvery)), Options: o, RunID: "ack-every"})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if err := d.Setup(ctx); err != nil {
				t.Fatal(err)
			}
			defer d.Teardown(context.Background())
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
			c, err := d.NewConsumer(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var got atomic.Int64
			if err := c.Start(ctx, func([]byte, time.Time) { got.Add(1) }); err != nil {
				t.Fatal(err)
			}
			waitFor(t, 30*time.Second, func() bool { return got.Load() >= n })
			time.Sleep(20 * time.Millisecond) // the last idle ack
			acks := c.(*consumer).acks.Load()
			t.Logf("ack_every %d: %d acks for %d deliveries", tc.ackEvery, acks, n)
			if acks < tc.minAcks || acks > tc.maxAcks {
				t.Errorf("ack_every %d: %d acks for %d deliveries, want %d..%d", tc.ackEvery, acks, n, tc.minAcks, tc.maxAcks)
			}
		})
	}
}
