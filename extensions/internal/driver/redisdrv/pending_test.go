package redisdrv

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// TestStreamsLostRead loses the reply of an XREADGROUP after Redis handed entries to the
// consumer (they sit in its pending entries list): every entry must still be delivered exactly
// once, and the group end with nothing pending. With acknowledgements refused first, the
// entries the consumer already delivered are in its PEL too and must not be delivered again.
// A private server: the test kills connections and changes ACL users.
func TestStreamsLostRead(t *testing.T) {
	for _, tc := range []struct {
		name      string
		refuseAck bool // the consumer's user may not XACK until the lost read is over
		before    int  // entries delivered before the lost read
	}{
		{name: "lost read", before: 5},
		// 8 pending + the lost ones: more than read_count (8), so the drain reads on past a page.
		{name: "lost read after refused acks", refuseAck: true, before: 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv := startRedis(t)
			addr := fmt.Sprintf("127.0.0.1:%d", srv.port)
			admin := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true})
			t.Cleanup(func() { admin.Close() })
			url := "redis://" + addr
			if tc.refuseAck {
				if err := admin.Do(ctx, "ACL", "SETUSER", "bench", "on", ">pw", "~*", "&*", "+@all", "-xack").Err(); err != nil {
					t.Fatal(err)
				}
				url = "redis://bench:pw@" + addr
			}
			const key, group = "mqbench.lost", "mqbench-lost"
			d, err := Open(ctx, driver.Config{URL: url, Destination: key, RunID: "lost",
				Options: &Options{Mode: "streams", ReadCount: 8, Block: 500 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			if err := d.Setup(ctx); err != nil {
				t.Fatal(err)
			}
			c, err := d.NewConsumer(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := &tally{n: map[string]int{}}
			if err := c.Start(ctx, got.add); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			sc := c.(*streamConsumer)

			sent := addEntries(t, admin, "before", tc.before)
			got.waitFor(t, sent)
			sent = append(sent, loseRead(t, admin, sc, key, group)...)
			// The lost entries come after the earlier ones in the PEL: once they are delivered,
			// the drain has met every entry whose XACK was refused.
			got.waitFor(t, sent)
			if tc.refuseAck {
				// Now 12 IDs wait for their XACK (16 if loseRead took two attempts); more would
				// pass the bound (2 × read_count), and the oldest would be forgotten.
				if err := admin.Do(ctx, "ACL", "SETUSER", "bench", "+xack").Err(); err != nil {
					t.Fatal(err)
				}
			}
			sent = append(sent, addEntries(t, admin, "after", 3)...)
			got.waitFor(t, sent)
			got.exactlyOnce(t, sent)
			waitNothingPending(t, admin, key, group)
			if !t.Failed() {
				got.exactlyOnce(t, sent) // nothing delivered again meanwhile
			}
			if sc.Errors() == 0 {
				t.Error("the consumer saw no error, though its connection was killed")
			}
		})
	}
}

// loseRead adds entries while the consumer is blocked in XREADGROUP and kills its connection
// in the same pipeline: Redis hands the entries over when the transaction ends (they enter the
// consumer's PEL) and frees the connection before the reply is written, so the reply is lost
// for sure. If the consumer was not blocked at that instant (its BLOCK just expired), nothing
// was handed over, and it tries again.
func loseRead(t *testing.T, admin *redis.Client, sc *streamConsumer, key, group string) (sent []string) {
	t.Helper()
	ctx := context.Background()
	for attempt := range 5 {
		id := blockedClient(t, admin, "mqbench-sub-0")
		pipe := admin.Pipeline()
		before := pipe.XPending(ctx, key, group)
		pipe.Do(ctx, "MULTI")
		var vals []string
		for i := range 4 {
			v := fmt.Sprintf("lost-%d-%d", attempt, i)
			pipe.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []string{field, v}})
			vals = append(vals, v)
		}
		pipe.Do(ctx, "EXEC")
		kill := pipe.ClientKillByFilter(ctx, "ID", strconv.FormatInt(id, 10))
		after := pipe.XPending(ctx, key, group)
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if kill.Val() != 1 {
			t.Fatalf("CLIENT KILL killed %d connections, want 1", kill.Val())
		}
		sent = append(sent, vals...)
		if after.Val().Consumers[sc.consumer]-before.Val().Consumers[sc.consumer] == int64(len(vals)) {
			return sent
		}
	}
	t.Fatal("the consumer was never caught blocked in XREADGROUP")
	return nil
}

// blockedClient waits until the connection named name is blocked in a command and returns its
// id.
func blockedClient(t *testing.T, admin *redis.Client, name string) int64 {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		list, err := admin.ClientList(context.Background()).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(list, "\n") {
			f := map[string]string{}
			for _, kv := range strings.Fields(line) {
				k, v, _ := strings.Cut(kv, "=")
				f[k] = v
			}
			if f["name"] == name && strings.Contains(f["flags"], "b") {
				id, err := strconv.ParseInt(f["id"], 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				return id
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("no connection named %s blocked within 5s", name)
	return 0
}

// addEntries adds n entries prefix-0 … prefix-(n-1) and returns their values.
func addEntries(t *testing.T, admin *redis.Client, prefix string, n int) []string {
	t.Helper()
	var vals []string
	for i := range n {
		v := fmt.Sprintf("%s-%d", prefix, i)
		if err := admin.XAdd(context.Background(), &redis.XAddArgs{Stream: "mqbench.lost", Values: []string{field, v}}).Err(); err != nil {
			t.Fatal(err)
		}
		vals = append(vals, v)
	}
	return vals
}

func waitNothingPending(t *testing.T, admin *redis.Client, key, group string) {
	t.Helper()
	var n int64
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		p, err := admin.XPending(context.Background(), key, group).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n = p.Count; n == 0 {
			return
		}
	}
	t.Fatalf("%d entries still pending in group %s after 5s", n, group)
}

// tally counts deliveries by payload.
type tally struct {
	mu sync.Mutex
	n  map[string]int
}

func (g *tally) add(v []byte, _ time.Time) {
	g.mu.Lock()
	g.n[string(v)]++
	g.mu.Unlock()
}

func (g *tally) missing(want []string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var miss []string
	for _, v := range want {
		if g.n[v] == 0 {
			miss = append(miss, v)
		}
	}
	return miss
}

func (g *tally) waitFor(t *testing.T, want []string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(g.missing(want)) > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if miss := g.missing(want); len(miss) > 0 {
		t.Fatalf("not delivered within 5s: %v", miss)
	}
}

func (g *tally) exactlyOnce(t *testing.T, want []string) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, v := range want {
		if g.n[v] != 1 {
			t.Errorf("%s delivered %d times, want once", v, g.n[v])
		}
	}
	if len(g.n) != len(want) {
		t.Errorf("%d distinct payloads delivered, want %d", len(g.n), len(want))
	}
}

// TestUnackedBound: the retained IDs never exceed the limit, and the newest stay.
func TestUnackedBound(t *testing.T) {
	for _, tc := range []struct {
		held, adding, limit int
		want                []string
	}{
		{held: 3, adding: 2, limit: 8, want: []string{"0", "1", "2"}},
		{held: 6, adding: 4, limit: 8, want: []string{"2", "3", "4", "5"}},
		{held: 6, adding: 8, limit: 8, want: nil},
		{held: 6, adding: 9, limit: 8, want: nil},
	} {
		u := unacked{limit: tc.limit}
		for i := range tc.held {
			u.ids = append(u.ids, strconv.Itoa(i))
		}
		u.makeRoom(tc.adding)
		if strings.Join(u.ids, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%d held, room for %d of %d: kept %v, want %v", tc.held, tc.adding, tc.limit, u.ids, tc.want)
		}
	}
}
