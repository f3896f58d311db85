package mongodrv

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// mongoURL returns the server to test against (MQBENCH_MONGODB_URL, default
// mongodb://127.0.0.1:27117: FerretDB on PostgreSQL, scripts/brokers/start.sh postgres ferretdb). When it does not answer, the
// test is skipped, unless MQBENCH_REQUIRE_BROKERS=1, which makes it a failure.
func mongoURL(t testing.TB) string { return drivertest.BrokerURL(t, "mongodb") }

func unique(name string) string {
	return fmt.Sprintf("mqbench.test.%s.%d", name, time.Now().UnixNano())
}

func TestMongoConformance(t *testing.T) {
	url := mongoURL(t)
	for _, tc := range []struct {
		name   string
		opts   *Options
		shared bool
	}{
		{name: "batch", opts: &Options{}},
		{name: "batch-shared", opts: &Options{}, shared: true},
		{name: "insert-batch-id", opts: &Options{InsertBatch: 50, ClaimBatch: 500, Order: OrderID}},
		{name: "insert-batch-shared-natural", opts: &Options{InsertBatch: 50, ClaimBatch: 500, Order: OrderNatural}, shared: true},
		{name: "batch-natural-majority", opts: &Options{Order: OrderNatural, WriteConcern: "majority", Journal: true}},
	} {
		// One at a time: each needs the server's whole throughput to drain the suite's
		// burst within its limits (FerretDB on PostgreSQL, a 2-core machine).
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Defaults()
			cfg := driver.Config{URL: url, Destination: unique(tc.name), Options: tc.opts}
			if tc.shared {
				drivertest.RunShared(t, "mongodb", cfg)
			} else {
				drivertest.Run(t, "mongodb", cfg)
			}
		})
	}
}

func TestMongoUnreachable(t *testing.T) {
	t.Parallel()
	drivertest.Unreachable(t, "mongodb", "mongodb://mq:secret-pw@127.0.0.1:1", nil)
}

func TestMongoChecks(t *testing.T) {
	for _, u := range []string{"mongodb://127.0.0.1:27117", "mongodb://localhost", "mongodb://a:1,b:2/?replicaSet=rs0", "mongodb://u:p@127.0.0.1:27017/admin?authSource=admin", "mongodb+srv://cluster.example.com"} {
		if err := checkURL(u); err != nil {
			t.Errorf("checkURL(%q): %v", u, err)
		}
	}
	for _, u := range []string{"redis://127.0.0.1:6379", "127.0.0.1:27017", "mongodb://127.0.0.1:99999", "mongodb://", "mongodb://h/?connectTimeoutMS=abc", "mongodb+srv://h:27017", "mongodb+srv://a,b"} {
		if err := checkURL(u); err == nil {
			t.Errorf("checkURL(%q) accepted", u)
		}
	}
	if err := checkURL("mongodb://u:hunter22@127.0.0.1:99999"); err == nil || strings.Contains(err.Error(), "hunter22") {
		t.Errorf("checkURL with a bad port: %v (must fail without the password)", err)
	}
	for _, n := range []string{"a", "bench.latency", "queue-1", strings.Repeat("x", 228)} {
		if err := checkCollection(n, nil); err != nil {
			t.Errorf("checkCollection(%q): %v", n, err)
		}
	}
	for _, n := range []string{"", "a$b", "system.x", ".a", "a.", "q.claims", strings.Repeat("x", 229)} {
		if err := checkCollection(n, nil); err == nil {
			t.Errorf("checkCollection(%q) accepted", n)
		}
	}
	o := &Options{Database: "a.b", WriteConcern: "2", Claim: "x", ClaimBatch: -1, Order: "y", Notify: "z", PollInterval: time.Nanosecond}
	o.Defaults()
	if errs := o.Validate(); len(errs) != 7 {
		t.Errorf("Validate: %v, want 7 errors", errs)
	}
	o = &Options{Claim: ClaimOne, Transaction: true}
	o.Defaults()
	if errs := o.Validate(); len(errs) != 1 || errs[0].Field != "transaction" {
		t.Errorf("Validate: %v, want transaction refused with find-one-and-delete", errs)
	}
}

// TestMongoServerLimits: FerretDB v1 has neither change streams nor transactions, and a
// standalone MongoDB neither: Open says so, naming the server, instead of a run that fails
// later. Skipped against a replica set (where both work).
func TestMongoServerLimits(t *testing.T) {
	url := mongoURL(t)
	t.Parallel()
	ctx := context.Background()
	d, err := Open(ctx, driver.Config{URL: url, Destination: unique("limits")})
	if err != nil {
		t.Fatal(err)
	}
	md := d.(*mongoDriver)
	d.Close()
	t.Logf("server: %s, replica set: %v", md.server, md.replicaSet)
	if md.replicaSet && !md.ferret {
		t.Skip("a replica set: change streams and transactions are available")
	}
	for _, o := range []*Options{{Notify: NotifyChangeStream}, {Transaction: true}} {
		o.Defaults()
		_, err := Open(ctx, driver.Config{URL: url, Destination: unique("limits"), Options: o})
		if err == nil {
			t.Fatalf("Open with %+v succeeded on %s", o, md.server)
		}
		if !strings.Contains(err.Error(), md.server) {
			t.Errorf("error %q does not name the server %q", err, md.server)
		}
	}
}

// TestMongoBrokerStats: 300 messages nobody reads are the collection's count (Backlog); CPU
// and memory are not exposed.
func TestMongoBrokerStats(t *testing.T) {
	url := mongoURL(t)
	t.Parallel()
	cfg := driver.Config{URL: url, Destination: unique("stats")}
	drivertest.BrokerStats(t, "mongodb", cfg, 300, drivertest.StatsWant{Backlog: 300})
}

// paced publishes n messages at rate per second from one publisher to consumers consumers and
// waits (30 s at most) until every one arrived; it returns how often each arrived.
func paced(t *testing.T, o *Options, consumers, n, rate int) (counts []int) {
	t.Helper()
	url := mongoURL(t)
	o.Defaults()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	d, err := Open(ctx, driver.Config{URL: url, Destination: unique("paced"), Options: o})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	defer d.Teardown(context.Background())
	var mu sync.Mutex
	counts = make([]int, n)
	var got atomic.Int64
	for i := range consumers {
		c, err := d.NewConsumer(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Start(ctx, func(v []byte, _ time.Time) {
			k := int(binary.LittleEndian.Uint64(v))
			mu.Lock()
			counts[k]++
			mu.Unlock()
			got.Add(1)
		}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	start := time.Now()
	for i := range n {
		time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(rate))))
		if _, err := p.Send(ctx, driver.Message{Value: binary.LittleEndian.AppendUint64(nil, uint64(i))}); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); got.Load() < int64(n) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // late duplicates
	mu.Lock()
	defer mu.Unlock()
	return append([]int(nil), counts...)
}

// TestMongoFindOneAndDelete: claim find-one-and-delete delivers every message. FerretDB v1
// sorts the whole collection in memory for each findOneAndDelete, so a burst (the conformance
// suite's 2000 at once) builds a backlog it works off at a few dozen messages per second:
// there it runs at a paced 100 msg/s; on MongoDB the conformance suite runs too. With two
// consumers on FerretDB a message can reach both (its findAndModify reads, then deletes
// without checking that the delete removed anything): duplicates are logged, losses fail.
func TestMongoFindOneAndDelete(t *testing.T) {
	url := mongoURL(t)
	d, err := Open(context.Background(), driver.Config{URL: url, Destination: unique("probe")})
	if err != nil {
		t.Fatal(err)
	}
	ferret := d.(*mongoDriver).ferret
	d.Close()
	if !ferret {
		o := &Options{Claim: ClaimOne}
		o.Defaults()
		drivertest.RunShared(t, "mongodb", driver.Config{URL: url, Destination: unique("fod"), Options: o})
		return
	}
	for _, consumers := range []int{1, 2} {
		counts := paced(t, &Options{Claim: ClaimOne, PollInterval: time.Millisecond}, consumers, 500, 100)
		lost, dups := 0, 0
		for _, c := range counts {
			if c == 0 {
				lost++
			}
			dups += max(c-1, 0)
		}
		t.Logf("FerretDB, %d consumer(s), 500 messages at 100/s: %d lost, %d duplicate deliveries", consumers, lost, dups)
		if lost > 0 || (consumers == 1 && dups > 0) {
			t.Errorf("%d consumer(s): %d lost, %d duplicated", consumers, lost, dups)
		}
	}
}
