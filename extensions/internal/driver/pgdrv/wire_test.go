package pgdrv

import (
	"context"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// TestPublisherServerError: an INSERT the server refuses fails with the server's error
// (SQLSTATE named) on the same connection, which then carries the next INSERTs, single and
// multi-row, with every row stored in order.
func TestPublisherServerError(t *testing.T) {
	ctx := context.Background()
	d, p := tablePublisher(t, "refused", "ADD CONSTRAINT short CHECK (length(payload) < 8)")
	pid := p.conn.pid

	err := send(ctx, p, []byte("too long for the check"))
	if err == nil || !strings.Contains(err.Error(), "SQLSTATE 23514") {
		t.Fatalf("INSERT against the check: %v, want the server's check_violation", err)
	}
	for _, v := range []string{"a", "b"} {
		if err := send(ctx, p, []byte(v)); err != nil {
			t.Fatalf("INSERT after the server's error: %v", err)
		}
	}
	// Three at once: the batcher may gather them into one multi-row INSERT (a new statement).
	var acks []driver.Ack
	for _, v := range []string{"c", "d", "e"} {
		a, err := p.Send(ctx, driver.Message{Value: []byte(v)})
		if err != nil {
			t.Fatal(err)
		}
		acks = append(acks, a)
	}
	for _, a := range acks {
		if err := a.Wait(ctx); err != nil {
			t.Fatalf("INSERT after the server's error: %v", err)
		}
	}
	if p.conn == nil || p.conn.pid != pid {
		t.Fatal("the publisher re-connected after an error the server answered")
	}
	var got string
	if err := d.pool.QueryRow(ctx, "SELECT string_agg(convert_from(payload, 'UTF8'), '' ORDER BY id) FROM "+d.table).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "abcde" {
		t.Fatalf("rows stored: %q, want \"abcde\"", got)
	}
}

// tablePublisher runs in parallel with a fresh table (polled; alter, when not "", changes it
// first: ALTER TABLE t <alter>) and its publisher 0, both gone when the test ends.
func tablePublisher(t *testing.T, name, alter string) (*pgDriver, *publisher) {
	t.Helper()
	url := pgURL(t)
	t.Parallel()
	ctx := context.Background()
	d := open(t, url, unique(name), &Options{Wakeup: WakeupPoll})
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Teardown(ctx) })
	if alter != "" {
		if _, err := d.pool.Exec(ctx, "ALTER TABLE "+d.table+" "+alter); err != nil {
			t.Fatal(err)
		}
	}
	pub, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pub.Close() })
	return d, pub.(*publisher)
}
