package redisdrv

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// redisURL returns the broker to test against (MQBENCH_REDIS_URL, default
// redis://127.0.0.1:6379). When it does not answer, the test is skipped, unless
// MQBENCH_REQUIRE_BROKERS=1, which makes it a failure.
func redisURL(t testing.TB) string { return drivertest.BrokerURL(t, "redis") }

func unique(name string) string {
	return fmt.Sprintf("mqbench.test.%s.%d", name, time.Now().UnixNano())
}

func TestConformance(t *testing.T) {
	url := redisURL(t)
	for _, tc := range []struct {
		name   string
		opts   *Options
		shared bool
	}{
		{name: "pubsub", opts: &Options{Mode: "pubsub"}},
		{name: "streams", opts: &Options{Mode: "streams"}},
		{name: "streams-maxlen-shared", opts: &Options{Mode: "streams", MaxLen: 100000, ReadCount: 16, Block: 20 * time.Millisecond}, shared: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Defaults()
			cfg := driver.Config{URL: url, Destination: unique(tc.name), Options: tc.opts, RunID: fmt.Sprintf("run-%s-%d", tc.name, time.Now().UnixNano())}
			if tc.shared {
				drivertest.RunShared(t, "redis", cfg)
			} else {
				drivertest.Run(t, "redis", cfg)
			}
		})
	}
}

// TestPubSubFanOut documents Redis pub/sub semantics: every consumer receives every message.
func TestPubSubFanOut(t *testing.T) {
	url := redisURL(t)
	t.Parallel()
	ctx := context.Background()
	d, err := Open(ctx, driver.Config{URL: url, Destination: unique("fanout"), Options: &Options{Mode: "pubsub"}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
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
		if _, err := p.Send(ctx, driver.Message{Value: []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for (got[0].Load() < 100 || got[1].Load() < 100) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got[0].Load() != 100 || got[1].Load() != 100 {
		t.Fatalf("consumers got %d and %d messages, want 100 each", got[0].Load(), got[1].Load())
	}
}

// TestKeptGroup runs twice with a user-named group and keep: the second run must reuse the
// group and stream, and Teardown must leave both in place.
func TestKeptStream(t *testing.T) {
	url := redisURL(t)
	t.Parallel()
	ctx := context.Background()
	key := unique("kept")
	o := &Options{Mode: "streams", Keep: true}
	o.Defaults()
	d, err := Open(ctx, driver.Config{URL: url, Destination: key, Options: o, RunID: "kept"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rd := d.(*redisDriver)
	defer rd.admin.Del(ctx, key)
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	if !rd.streamCreated || !rd.groupCreated {
		t.Fatalf("first Setup: streamCreated=%v groupCreated=%v, want both", rd.streamCreated, rd.groupCreated)
	}
	if err := d.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
	if n := rd.admin.Exists(ctx, key).Val(); n != 1 {
		t.Fatalf("kept stream gone after Teardown")
	}
	groups, err := rd.admin.XInfoGroups(ctx, key).Result()
	if err != nil || len(groups) != 0 {
		t.Fatalf("groups after Teardown with keep: %v, %v (want the run's group destroyed)", groups, err)
	}

	// A second run with a pre-existing group: nothing created, nothing removed.
	if err := rd.admin.XGroupCreate(ctx, key, "users-group", "$").Err(); err != nil {
		t.Fatal(err)
	}
	o2 := &Options{Mode: "streams", Group: "users-group"}
	o2.Defaults()
	d2, err := Open(ctx, driver.Config{URL: url, Destination: key, Options: o2, RunID: "kept2"})
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	rd2 := d2.(*redisDriver)
	if err := d2.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	if rd2.streamCreated || rd2.groupCreated {
		t.Fatalf("second Setup claims it created stream=%v group=%v", rd2.streamCreated, rd2.groupCreated)
	}
	if err := d2.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
	groups, _ = rd.admin.XInfoGroups(ctx, key).Result()
	if rd.admin.Exists(ctx, key).Val() != 1 || len(groups) != 1 {
		t.Fatalf("Teardown removed what it did not create (groups %v)", groups)
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"redis://127.0.0.1:1", "redis://bench:secret@127.0.0.1:1/0"} {
		drivertest.Unreachable(t, "redis", u, nil)
	}
}

func TestPassword(t *testing.T) {
	url := redisURL(t)
	ctx := context.Background()

	o := &Options{PasswordEnv: "MQBENCH_TEST_UNSET_PASSWORD_VAR"}
	o.Defaults()
	if _, err := Open(ctx, driver.Config{URL: url, Destination: "x", Options: o}); err == nil || !strings.Contains(err.Error(), "MQBENCH_TEST_UNSET_PASSWORD_VAR") {
		t.Errorf("unset password_env: got %v, want an error naming the variable", err)
	}

	// Credentials the server does not accept (an ACL user that does not exist): an error, not
	// "unreachable", and without the password.
	const pw = "s3cr3t-value-never-printed"
	t.Setenv("MQBENCH_TEST_PASSWORD", pw)
	o = &Options{PasswordEnv: "MQBENCH_TEST_PASSWORD"}
	o.Defaults()
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	u.User = neturl.User("mqbench-no-such-user")
	d, err := Open(ctx, driver.Config{URL: u.String(), Destination: "x", Options: o})
	if err == nil {
		d.Close()
		t.Skip("this redis accepts any password (or has this one); nothing to check")
	}
	var ue *driver.UnreachableError
	if errors.As(err, &ue) {
		t.Errorf("auth failure reported as unreachable: %v", err)
	}
	if strings.Contains(err.Error(), pw) {
		t.Errorf("error leaks the password: %v", err)
	}
	t.Logf("wrong password: %v", err)
}

func TestValidateOrder(t *testing.T) {
	o := &Options{Mode: "pubsub", Group: "g", MaxLen: 1, ReadCount: 1, Block: time.Second}
	errs := o.Validate()
	want := []string{"block", "group", "maxlen", "read_count"}
	if len(errs) != len(want) {
		t.Fatalf("got %v", errs)
	}
	for i, e := range errs {
		if e.Field != want[i] {
			t.Errorf("error %d field %q, want %q", i, e.Field, want[i])
		}
	}
}

func BenchmarkPubSubPublishConsume1KB(b *testing.B) {
	url := redisURL(b)
	o := &Options{Mode: "pubsub"}
	o.Defaults()
	drivertest.Benchmark(b, "redis", driver.Config{URL: url, Destination: unique("bench"), Options: o}, 1024)
}

func BenchmarkStreamsPublishConsume1KB(b *testing.B) {
	url := redisURL(b)
	o := &Options{Mode: "streams"}
	o.Defaults()
	drivertest.Benchmark(b, "redis", driver.Config{URL: url, Destination: unique("bench"), Options: o}, 1024)
}
