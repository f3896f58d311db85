package rabbitdrv

import (
	"net"
	"sync"
	"time"
)

// batchConn gathers a publisher's small socket writes into fewer, larger ones. amqp091-go
// flushes its buffered writer after every basic.publish, so each message costs one write
// system call on the client and one read on the broker. Here Write copies the bytes into a
// pending buffer and wakes one writer goroutine, which writes everything pending in one call;
// writes arriving while it is in the kernel gather behind it (no timer, so no added wait when
// the socket is idle).
//
// Write returns once the bytes are buffered, so a failed socket write shows up on a later
// Write (and closes the connection, which ends amqp091's reader and marks the session dead):
// confirms still pending then fail. Writes block while pendingLimit bytes wait, which keeps
// the broker's TCP back-pressure. Below it sits a deadlineConn, which bounds every socket
// write by writeTimeout; batchConn's own deadline setters therefore leave writes alone.
type batchConn struct {
	net.Conn

	mu      sync.Mutex
	room    *sync.Cond // signalled when pending shrinks or the connection fails
	pending []byte
	spare   []byte // the buffer the writer last emptied, reused for pending
	err     error  // first write error, or net.ErrClosed after Close; sticky
	kick    chan struct{}
	done    chan struct{} // closed by Close
	once    sync.Once
}

// pendingLimit bounds the bytes buffered ahead of the socket (about 250 1 KB publishes).
const pendingLimit = 256 << 10

var _ net.Conn = (*batchConn)(nil)

func newBatchConn(c net.Conn) *batchConn {
	b := &batchConn{Conn: c, kick: make(chan struct{}, 1), done: make(chan struct{})}
	b.room = sync.NewCond(&b.mu)
	go b.writeLoop()
	return b
}

func (b *batchConn) Write(p []byte) (int, error) {
	b.mu.Lock()
	for b.err == nil && len(b.pending) >= pendingLimit {
		b.room.Wait()
	}
	if b.err != nil {
		err := b.err
		b.mu.Unlock()
		return 0, err
	}
	b.pending = append(b.pending, p...)
	b.mu.Unlock()
	select {
	case b.kick <- struct{}{}:
	default: // the writer is already due to look
	}
	return len(p), nil
}

// writeLoop writes whatever is pending each time it is kicked, until Close or a failed write.
func (b *batchConn) writeLoop() {
	for {
		select {
		case <-b.kick:
		case <-b.done:
			return
		}
		b.mu.Lock()
		buf := b.pending
		b.pending, b.spare = b.spare[:0], nil
		b.mu.Unlock()
		if len(buf) == 0 {
			continue
		}
		_, err := b.Conn.Write(buf)
		b.mu.Lock()
		b.spare = buf[:0]
		if err != nil && b.err == nil {
			b.err = err
		}
		b.room.Broadcast()
		b.mu.Unlock()
		if err != nil {
			b.Close() // amqp091's reader then fails and shuts the connection down
			return
		}
	}
}

// SetDeadline bounds reads only: writes are bounded one by one below (deadlineConn), and a
// deadline set here would also cut short a write the writer has in flight.
func (b *batchConn) SetDeadline(t time.Time) error { return b.Conn.SetReadDeadline(t) }

// SetWriteDeadline is ignored for the same reason.
func (b *batchConn) SetWriteDeadline(time.Time) error { return nil }

// Close closes the socket and stops the writer; bytes still pending are dropped (the
// close handshake waits for its reply, so what it needs has been written by then).
func (b *batchConn) Close() error {
	var err error
	b.once.Do(func() {
		b.mu.Lock()
		if b.err == nil {
			b.err = net.ErrClosed
		}
		b.room.Broadcast()
		b.mu.Unlock()
		close(b.done)
		err = b.Conn.Close()
	})
	return err
}
