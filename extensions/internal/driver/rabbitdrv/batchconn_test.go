package rabbitdrv

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingConn counts the socket writes under a batchConn.
type countingConn struct {
	net.Conn
	writes atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// loopback returns a batchConn over a real TCP connection on 127.0.0.1, the socket writes
// made so far, and the peer.
func loopback(t *testing.T) (*batchConn, *atomic.Int64, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer := <-accepted
	if peer == nil {
		t.Fatal("accept failed")
	}
	cc := &countingConn{Conn: c}
	b := newBatchConn(cc)
	t.Cleanup(func() { b.Close(); peer.Close() })
	return b, &cc.writes, peer
}

// TestBatchConnKeepsOrder: writes from several goroutines (amqp091 serialises its own, so
// each frame is one Write) arrive whole, each writer's in its order, nothing lost, nothing
// added, and in fewer socket writes than Writes when they come faster than the socket takes them.
func TestBatchConnKeepsOrder(t *testing.T) {
	for _, tc := range []struct {
		name           string
		writers, count int
		size           int
	}{
		{"one writer, small", 1, 20000, 100},
		{"four writers, 1 KB", 4, 5000, 1024},
		{"one writer, over the pending limit", 1, 40, pendingLimit / 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, writes, peer := loopback(t)
			want := tc.writers * tc.count * tc.size
			got := make(chan []byte, 1)
			go func() {
				all, _ := io.ReadAll(io.LimitReader(peer, int64(want)))
				got <- all
			}()
			var wg sync.WaitGroup
			var mu sync.Mutex // one Write at a time, as amqp091's send lock
			for w := 0; w < tc.writers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					msg := make([]byte, tc.size)
					for i := 0; i < tc.count; i++ {
						msg[0], msg[1], msg[2] = byte(w), byte(i), byte(i>>8)
						mu.Lock()
						_, err := b.Write(msg)
						mu.Unlock()
						if err != nil {
							t.Errorf("write %d: %v", i, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			var all []byte
			select {
			case all = <-got:
			case <-time.After(20 * time.Second):
				t.Fatal("the peer did not get every byte in 20 s")
			}
			if len(all) != want {
				t.Fatalf("peer read %d bytes, want %d", len(all), want)
			}
			next := make([]int, tc.writers)
			for off := 0; off < len(all); off += tc.size {
				m := all[off : off+tc.size]
				w, i := int(m[0]), int(m[1])|int(m[2])<<8
				if w >= tc.writers || i != next[w]&0xffff {
					t.Fatalf("frame at byte %d: writer %d message %d, want message %d", off, w, i, next[w])
				}
				if !bytes.Equal(m[3:], make([]byte, tc.size-3)) {
					t.Fatalf("frame at byte %d: body changed", off)
				}
				next[w]++
			}
			if n, calls := writes.Load(), tc.writers*tc.count; tc.size < 4096 && n > int64(calls)*9/10 {
				t.Errorf("%d socket writes for %d Writes of %d bytes: not gathered", n, calls, tc.size)
			} else {
				t.Logf("%d socket writes for %d Writes of %d bytes", n, calls, tc.size)
			}
		})
	}
}

// TestBatchConnFailure: once the socket fails, Write fails (not silently buffers forever),
// and a Write blocked on a full buffer is released by Close.
func TestBatchConnFailure(t *testing.T) {
	t.Run("peer gone", func(t *testing.T) {
		b, _, peer := loopback(t)
		peer.Close()
		deadline := time.Now().Add(10 * time.Second)
		var err error
		for err == nil && time.Now().Before(deadline) {
			_, err = b.Write(make([]byte, 1024))
			time.Sleep(time.Millisecond)
		}
		if err == nil {
			t.Fatal("writes kept succeeding for 10 s after the peer closed")
		}
		if _, again := b.Write([]byte{1}); again == nil {
			t.Errorf("a write after the failure (%v) succeeded", err)
		}
	})
	t.Run("close releases a blocked write", func(t *testing.T) {
		b, _, _ := loopback(t) // the peer never reads: the kernel's buffers, then pending, fill
		blocked := make(chan error, 1)
		go func() {
			chunk := make([]byte, 64<<10)
			for {
				if _, err := b.Write(chunk); err != nil {
					blocked <- err
					return
				}
			}
		}()
		time.Sleep(300 * time.Millisecond) // long enough to fill both
		b.Close()
		select {
		case err := <-blocked:
			if !errors.Is(err, net.ErrClosed) {
				t.Errorf("blocked write ended with %v, want net.ErrClosed", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a write blocked on a full buffer stayed blocked after Close")
		}
	})
}
