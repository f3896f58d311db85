package pgdrv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// pgURL returns the server to test against (MQBENCH_POSTGRES_URL, default
// postgres://postgres@127.0.0.1:5532/mqbench, scripts/brokers/start.sh postgres). When it does
// not answer, the test is skipped, unless MQBENCH_REQUIRE_BROKERS=1, which makes it a failure.
func pgURL(t testing.TB) string { return drivertest.BrokerURL(t, "postgres") }

func unique(name string) string {
	return fmt.Sprintf("mqbench_test_%s_%d", name, time.Now().UnixNano())
}

func ptr[T any](v T) *T { return &v }

func TestConformance(t *testing.T) {
	url := pgURL(t)
	for _, tc := range []struct {
		name   string
		opts   *Options
		shared bool
	}{
		{name: "default", opts: &Options{}},
		// Notifying COMMITs are serialised through their WAL flushes (a database-wide lock):
		// 2,000 messages sent at once beside the other cases queue for seconds on a busy
		// machine, past the suite's 5 s bound; synchronous_commit off keeps the flush out.
		{name: "notify", opts: &Options{Wakeup: WakeupNotify, SynchronousCommit: ptr(false)}},
		{name: "notify-shared-batch-16", opts: &Options{Wakeup: WakeupNotify, BatchSize: 16, SynchronousCommit: ptr(false)}, shared: true},
		{name: "poll-shared", opts: &Options{PollInterval: 2 * time.Millisecond}, shared: true},
		{name: "autocommit-async", opts: &Options{TransactionPerBatch: ptr(false), SynchronousCommit: ptr(false), BatchSize: 1}},
		{name: "unlogged-schema", opts: &Options{Unlogged: true, Schema: "mqbench_test_schema"}},
		// Multi-row INSERTs: of what waits, and held for more.
		{name: "insert-batch-100", opts: &Options{PublishBatch: 100}},
		{name: "insert-batch-linger-shared", opts: &Options{PublishBatch: 20, PublishLinger: 2 * time.Millisecond}, shared: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Defaults()
			cfg := driver.Config{URL: url, Destination: unique(tc.name), Options: tc.opts}
			if tc.shared {
				drivertest.RunShared(t, "postgres", cfg)
			} else {
				drivertest.Run(t, "postgres", cfg)
			}
		})
	}
}

// TestBrokerStats: 500 rows nobody takes are the table's backlog; no CPU or memory over SQL.
func TestBrokerStats(t *testing.T) {
	url := pgURL(t)
	t.Parallel()
	o := &Options{}
	o.Defaults()
	drivertest.BrokerStats(t, "postgres", driver.Config{URL: url, Destination: unique("stats"), Options: o}, 500, drivertest.StatsWant{Backlog: 500})
}

func open(t *testing.T, url, table string, o *Options) *pgDriver {
	t.Helper()
	o.Defaults()
	d, err := Open(context.Background(), driver.Config{URL: url, Destination: table, Options: o})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d.(*pgDriver)
}

func exists(t *testing.T, d *pgDriver) bool {
	t.Helper()
	ok, _, err := d.DestinationExists(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestKeptTable: with keep, Teardown leaves the table it created; a second run on the existing
// table does not drop it either.
func TestKeptTable(t *testing.T) {
	url := pgURL(t)
	t.Parallel()
	ctx := context.Background()
	table := unique("kept")
	d := open(t, url, table, &Options{Keep: true})
	defer d.pool.Exec(ctx, "DROP TABLE IF EXISTS "+d.table)
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	if !d.created {
		t.Fatal("first Setup did not record creating the table")
	}
	if err := d.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
	if !exists(t, d) {
		t.Fatal("keep: the table is gone after Teardown")
	}
	d2 := open(t, url, table, &Options{})
	if err := d2.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	if d2.created {
		t.Fatal("second Setup claims to have created an existing table")
	}
	if err := d2.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
	if !exists(t, d2) {
		t.Fatal("a table the run did not create was dropped")
	}
}

// TestAbortedBatchComesBack: rows a transaction took with the consumers' statement and then
// rolled back (a consumer that died before COMMIT) reach a running consumer — after
// poll_interval at the latest, since a rollback sends no notification.
func TestAbortedBatchComesBack(t *testing.T) {
	url := pgURL(t)
	t.Parallel()
	ctx := context.Background()
	d := open(t, url, unique("abort"), &Options{Wakeup: WakeupNotify, PollInterval: 200 * time.Millisecond})
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	defer d.Teardown(ctx)
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := range 5 {
		if err := send(ctx, p, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := d.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := newConsumer(d, 0)
	rows, err := tx.Query(ctx, c.take, 10)
	if err != nil {
		t.Fatal(err)
	}
	taken := 0
	for rows.Next() {
		taken++
	}
	if rows.Err() != nil || taken != 5 {
		t.Fatalf("took %d rows (%v), want 5", taken, rows.Err())
	}
	got := make(chan byte, 10)
	if err := c.Start(ctx, func(v []byte, _ time.Time) { got <- v[0] }); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	select {
	case v := <-got:
		t.Fatalf("message %d delivered while another transaction holds it", v)
	case <-time.After(300 * time.Millisecond):
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(5 * time.Second)
	for i := range 5 {
		select {
		case v := <-got:
			if int(v) != i {
				t.Fatalf("message %d arrived as number %d: want id order", v, i)
			}
		case <-deadline:
			t.Fatalf("%d of 5 rolled-back messages came back", i)
		}
	}
}

// send sends one message and waits for its acknowledgement.
func send(ctx context.Context, p driver.Publisher, v []byte) error {
	a, err := p.Send(ctx, driver.Message{Value: v})
	if err != nil {
		return err
	}
	return a.Wait(ctx)
}

// TestPublisherReconnects: a publisher whose connection the server ended fails one message
// and reconnects for a later one.
func TestPublisherReconnects(t *testing.T) {
	ctx := context.Background()
	d, p := tablePublisher(t, "reconnect", "")
	pid := p.conn.pid
	if _, err := d.pool.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	if err := send(ctx, p, []byte("x")); err == nil {
		t.Fatal("INSERT on a terminated connection succeeded")
	} else {
		t.Logf("first message: %v", err)
	}
	var lastErr error
	for range 50 {
		if lastErr = send(ctx, p, []byte("y")); lastErr == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no Send succeeded after the connection was terminated: %v", lastErr)
}

// TestPublisherClose: messages still queued when the publisher closes fail (their Acks
// resolve with an error, none hangs), and Send after Close fails.
func TestPublisherClose(t *testing.T) {
	url := pgURL(t)
	t.Parallel()
	ctx := context.Background()
	d := open(t, url, unique("close"), &Options{Wakeup: WakeupPoll})
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	defer d.Teardown(ctx)
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var acks []driver.Ack
	for range 500 {
		a, err := p.Send(ctx, driver.Message{Value: []byte("q")})
		if err != nil {
			t.Fatal(err)
		}
		acks = append(acks, a)
	}
	p.Close()
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ok, failed := 0, 0
	for _, a := range acks {
		switch err := a.Wait(wctx); {
		case err == nil:
			ok++
		case errors.Is(err, errPublisherClosed):
			failed++
		default:
			t.Fatalf("ack: %v", err)
		}
	}
	t.Logf("of 500 queued: %d inserted, %d failed at Close", ok, failed)
	var n int
	if err := d.pool.QueryRow(ctx, "SELECT count(*) FROM "+d.table).Scan(&n); err != nil || n != ok {
		t.Errorf("%d rows in the table (%v), %d acknowledged", n, err, ok)
	}
	if _, err := p.Send(ctx, driver.Message{Value: []byte("late")}); err == nil {
		t.Error("Send after Close succeeded")
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	drivertest.Unreachable(t, "postgres", "postgres://postgres:secret-pw@127.0.0.1:1/mqbench", nil)
}

// TestRefused: an unknown role and a missing database are answers, not unreachability, and
// the message says which.
func TestRefused(t *testing.T) {
	url := pgURL(t)
	t.Parallel()
	withPW := strings.Replace(url, "://postgres@", "://mqbench_no_such_role:pw@", 1)
	sep := "?"
	if strings.Contains(withPW, "?") {
		sep = "&"
	}
	for _, tc := range []struct{ url, want string }{
		// The test server has no TLS: a password goes out only with sslmode said.
		{withPW + sep + "sslmode=disable", `user "mqbench_no_such_role"`},
		{withPW, "does not offer TLS, and a password is sent only over TLS unless the scenario says sslmode"},
		{strings.TrimSuffix(url, "/mqbench") + "/mqbench_no_such_db", `database "mqbench_no_such_db" does not exist`},
	} {
		_, err := Open(context.Background(), driver.Config{URL: tc.url, Destination: "x"})
		var ue *driver.UnreachableError
		if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), ":pw@") {
			t.Errorf("Open(%s): %v; want an error naming %s", tc.url, err, tc.want)
		}
	}
}

func TestChecks(t *testing.T) {
	for _, u := range []string{"postgres://postgres@127.0.0.1:5532/mqbench", "postgresql://u:p@localhost/db?sslmode=disable", "postgres://[::1]:5432/x"} {
		if err := checkURL(u); err != nil {
			t.Errorf("checkURL(%q): %v", u, err)
		}
	}
	for _, u := range []string{"redis://127.0.0.1:5532", "postgres://a:1,b:2/db", "host=127.0.0.1 port=5532", "postgres://127.0.0.1:99999/db"} {
		if err := checkURL(u); err == nil {
			t.Errorf("checkURL(%q) accepted", u)
		}
	}
	for _, n := range []string{"a", "_q", "mqbench.itest.pg", "Queue-1", strings.Repeat("x", 63)} {
		if err := checkTable(n, nil); err != nil {
			t.Errorf("checkTable(%q): %v", n, err)
		}
	}
	for _, n := range []string{"", "1a", "a b", `a"b`, "a;drop", strings.Repeat("x", 64), "é"} {
		if err := checkTable(n, nil); err == nil {
			t.Errorf("checkTable(%q) accepted", n)
		}
	}
	o := &Options{Schema: "bad schema", Wakeup: "push", PollInterval: time.Microsecond, BatchSize: 10001, PublishBatch: 1}
	if errs := o.Validate(); len(errs) != 4 {
		t.Errorf("Validate: %v, want 4 errors", errs)
	}
	for _, tc := range []struct {
		o     Options
		field string
	}{
		{Options{PublishBatch: 10001}, "publish_batch"},
		{Options{PublishBatch: 100, PublishLinger: 2 * time.Second}, "publish_linger"},
	} {
		tc.o.Defaults()
		if errs := tc.o.Validate(); len(errs) != 1 || errs[0].Field != tc.field {
			t.Errorf("Validate(%+v): %v, want one %s error", tc.o, errs, tc.field)
		}
	}
	o = &Options{}
	o.Defaults()
	if errs := o.Validate(); len(errs) != 0 || o.Wakeup != WakeupPoll || o.PollInterval != 5*time.Millisecond || !promisesDelivery(o) || o.AckMode() != "commit" {
		t.Errorf("defaults: %+v %v", o, errs)
	}
	o = &Options{Wakeup: WakeupNotify, SynchronousCommit: ptr(false)}
	o.Defaults()
	if o.PollInterval != time.Second || promisesDelivery(o) || o.AckMode() != "commit-async" {
		t.Errorf("notify, async: %+v", o)
	}
}

func BenchmarkPublishConsume1KB(b *testing.B) {
	url := pgURL(b)
	o := &Options{}
	o.Defaults()
	drivertest.Benchmark(b, "postgres", driver.Config{URL: url, Destination: unique("bench"), Options: o}, 1024)
}

// TestMultiRowInsert: 1,000 messages sent without pause through publish_batch 100 are all
// committed in fewer statements than messages, and consumers read them in Send order.
func TestMultiRowInsert(t *testing.T) {
	url := pgURL(t)
	t.Parallel()
	ctx := context.Background()
	o := &Options{PublishBatch: 100, PublishLinger: 5 * time.Millisecond}
	o.Defaults()
	d, pub := drivertest.OpenPublisher(t, Open, driver.Config{URL: url, Destination: unique("multirow"), Options: o})
	const n = 1000
	drivertest.SendNumbered(ctx, t, pub, n, nil)
	if s := pub.(*publisher).stmts.Load(); s < n/100 || s >= n/2 {
		t.Errorf("%d messages in %d INSERTs, want between %d and %d (batches of up to 100)", n, s, n/100, n/2)
	}
	c, err := d.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := make(chan string, n)
	if err := c.Start(ctx, func(v []byte, _ time.Time) { got <- string(v) }); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		select {
		case v := <-got:
			if want := fmt.Sprintf("m%04d", i); v != want {
				t.Fatalf("row %d is %q, want %q (rows out of Send order)", i, v, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d rows read", i, n)
		}
	}
}
