package clocksync

import (
	"cmp"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"syscall"
	"time"
)

// The reference clock listens where every runner reaches it, so anything on that network
// may connect: no connection may hold a goroutine and a file descriptor for long, and
// running out of descriptors must not end the server.
const (
	// DefaultIdle closes a connection that does not complete a request, or take its
	// answer, within this long: a runner's round trips follow one another at once.
	DefaultIdle = 10 * time.Second
	// DefaultMaxLife closes any connection this long after it was accepted: a runner's
	// measurement (8 round trips, 5 s timeout) is over long before.
	DefaultMaxLife = time.Minute
	// DefaultMaxConns is how many connections are served at once; one over it is closed
	// as it is accepted. A runner holds one for the milliseconds of a measurement.
	DefaultMaxConns = 64
	// maxAcceptDelay caps the backoff after a temporary accept error, as net/http does.
	maxAcceptDelay = time.Second
)

// Server is the reference clock's server; its zero value uses the defaults above.
type Server struct {
	Idle     time.Duration // 0: DefaultIdle
	MaxLife  time.Duration // 0: DefaultMaxLife
	MaxConns int           // 0: DefaultMaxConns
	// Logf, when set, hears of each temporary accept error before it is retried.
	Logf func(format string, args ...any)
}

// Serve answers round trips on ln with a zero Server until ln is closed.
func Serve(ln net.Listener) error { return (&Server{}).Serve(ln) }

// Serve answers round trips on ln until it is closed: for every 8-byte request, 8 bytes of
// the reference's wall clock (Unix ns) read as the request arrived. Temporary accept
// errors (out of file descriptors, an aborted handshake) are retried with a growing delay.
func (s *Server) Serve(ln net.Listener) error {
	idle, life := cmp.Or(s.Idle, DefaultIdle), cmp.Or(s.MaxLife, DefaultMaxLife)
	slots := make(chan struct{}, cmp.Or(s.MaxConns, DefaultMaxConns))
	var delay time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			if !temporary(err) {
				return err
			}
			delay = min(max(2*delay, 5*time.Millisecond), maxAcceptDelay)
			if s.Logf != nil {
				s.Logf("%v; retrying in %v", err, delay)
			}
			time.Sleep(delay)
			continue
		}
		delay = 0
		select {
		case slots <- struct{}{}:
		default:
			_ = c.Close() // over the cap: the runner's next measurement tries again
			continue
		}
		go func() {
			defer func() { <-slots }()
			serveConn(c, idle, time.Now().Add(life))
		}()
	}
}

// serveConn answers c's requests until it fails, idles for idle, or reaches end.
func serveConn(c net.Conn, idle time.Duration, end time.Time) {
	defer c.Close()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	var req, resp [8]byte
	for {
		dl := time.Now().Add(idle)
		if dl.After(end) {
			dl = end
		}
		if c.SetDeadline(dl) != nil {
			return
		}
		if _, err := io.ReadFull(c, req[:]); err != nil {
			return
		}
		binary.LittleEndian.PutUint64(resp[:], uint64(time.Now().UnixNano()))
		if _, err := c.Write(resp[:]); err != nil {
			return
		}
	}
}

// temporary reports whether an accept error passes: the listener itself is fine, a
// descriptor or a buffer is short for now, or one peer went away mid-handshake.
func temporary(err error) bool {
	for _, e := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EINTR} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
