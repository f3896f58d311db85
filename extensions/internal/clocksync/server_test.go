package clocksync

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// serve starts srv on a fresh 127.0.0.1 listener (ln wraps it when given) and returns its
// address and a channel with Serve's result.
func serve(t *testing.T, srv *Server, wrap func(net.Listener) net.Listener) (string, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	var l net.Listener = ln
	if wrap != nil {
		l = wrap(ln)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	return ln.Addr().String(), done
}

// roundTrip sends one request on c and reads the answer.
func roundTrip(c net.Conn) error {
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write(make([]byte, 8)); err != nil {
		return err
	}
	_, err := io.ReadFull(c, make([]byte, 8))
	return err
}

// closedByServer reports whether the server closes c within wait (a read sees EOF or a
// reset, not the client's own deadline).
func closedByServer(c net.Conn, wait time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(wait))
	_, err := c.Read(make([]byte, 8))
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// A connection that stops short of a request (nothing, half of one, nothing after an answer)
// is closed once it idles for Idle, and one that keeps talking once it reaches MaxLife.
func TestServerDeadlines(t *testing.T) {
	addr, _ := serve(t, &Server{Idle: 100 * time.Millisecond, MaxLife: 400 * time.Millisecond}, nil)
	for _, tc := range []struct {
		name string
		do   func(net.Conn) error
	}{
		{"sends nothing", func(net.Conn) error { return nil }},
		{"half a request", func(c net.Conn) error { _, err := c.Write(make([]byte, 4)); return err }},
		{"idle after an answer", roundTrip},
		{"a request every 60ms", func(c net.Conn) error {
			for range 20 { // 1.2 s of requests, each well within Idle
				if err := roundTrip(c); err != nil {
					return nil // closed at MaxLife, as it should be
				}
				time.Sleep(60 * time.Millisecond)
			}
			return errors.New("still served after 1.2s")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := tc.do(c); err != nil {
				t.Fatal(err)
			}
			if !closedByServer(c, 2*time.Second) {
				t.Error("connection still open 2s later")
			}
		})
	}
}

// MaxConns connections are served; one more is closed as it arrives; once one of them
// goes, a new connection is served again.
func TestServerConnectionCap(t *testing.T) {
	const n = 3
	addr, _ := serve(t, &Server{MaxConns: n}, nil)
	var held []net.Conn
	for i := range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := roundTrip(c); err != nil {
			t.Fatalf("connection %d of %d: %v", i+1, n, err)
		}
		held = append(held, c)
	}
	over, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	if !closedByServer(over, 2*time.Second) {
		t.Fatalf("connection %d of a cap of %d was not closed", n+1, n)
	}
	_ = held[0].Close()
	deadline := time.Now().Add(2 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		err = roundTrip(c)
		_ = c.Close()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no connection served after one of %d closed: %v", n, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// flakyListener fails its first fails accepts with err, then accepts for real.
type flakyListener struct {
	net.Listener
	fails atomic.Int32
	err   error
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if l.fails.Add(-1) >= 0 {
		return nil, l.err
	}
	return l.Listener.Accept()
}

var _ net.Listener = (*flakyListener)(nil)

// Running out of file descriptors (and the other passing accept errors) does not end the
// server: it retries and then serves; an error that does not pass still ends it.
func TestServerAcceptErrors(t *testing.T) {
	for _, tc := range []struct {
		errno syscall.Errno
		serve bool
	}{
		{syscall.EMFILE, true},
		{syscall.ENFILE, true},
		{syscall.ECONNABORTED, true},
		{syscall.EBADF, false},
	} {
		t.Run(tc.errno.Error(), func(t *testing.T) {
			var logged atomic.Int32
			srv := &Server{Logf: func(string, ...any) { logged.Add(1) }}
			addr, done := serve(t, srv, func(ln net.Listener) net.Listener {
				fl := &flakyListener{Listener: ln, err: &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept", tc.errno)}}
				fl.fails.Store(4)
				return fl
			})
			if !tc.serve {
				select {
				case err := <-done:
					if !errors.Is(err, tc.errno) {
						t.Fatalf("Serve = %v, want %v", err, tc.errno)
					}
				case <-time.After(2 * time.Second):
					t.Fatal("Serve still running")
				}
				return
			}
			if _, err := Measure(addr, 2, 2*time.Second, func() int64 { return time.Now().UnixNano() }); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				t.Fatalf("Serve ended: %v", err)
			default:
			}
			if logged.Load() != 4 {
				t.Errorf("logged %d accept errors, want 4", logged.Load())
			}
		})
	}
}

// A reference that claims an offset beyond MaxOffset (a year, an hour and a second, both
// signs) is refused with one line naming it; just within the bound is measured.
func TestMeasureOffsetBound(t *testing.T) {
	for _, tc := range []struct {
		claim time.Duration // added to the reference's answer
		ok    bool
	}{
		{365 * 24 * time.Hour, false},
		{-365 * 24 * time.Hour, false},
		{MaxOffset + time.Second, false},
		{-MaxOffset - time.Second, false},
		{MaxOffset - time.Second, true},
		{-MaxOffset + time.Second, true},
	} {
		t.Run(tc.claim.String(), func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go liar(ln, tc.claim)
			s, err := Measure(ln.Addr().String(), 4, 2*time.Second, func() int64 { return time.Now().UnixNano() })
			switch {
			case tc.ok && err != nil:
				t.Fatal(err)
			case tc.ok && (s.Offset+int64(tc.claim) > s.Uncertainty || s.Offset+int64(tc.claim) < -s.Uncertainty):
				t.Errorf("measured %v ± %v", time.Duration(s.Offset), time.Duration(s.Uncertainty))
			case !tc.ok && err == nil:
				t.Fatalf("accepted an offset of %v ± %v", time.Duration(s.Offset), time.Duration(s.Uncertainty))
			case !tc.ok && (!strings.Contains(err.Error(), "more than the 1h") || strings.Contains(err.Error(), "\n")):
				t.Errorf("error %q", err)
			}
		})
	}
}

// liar answers every round trip on ln's first connection with its clock shifted by claim.
func liar(ln net.Listener, claim time.Duration) {
	c, err := ln.Accept()
	if err != nil {
		return
	}
	defer c.Close()
	var buf [8]byte
	for {
		if _, err := io.ReadFull(c, buf[:]); err != nil {
			return
		}
		binary.LittleEndian.PutUint64(buf[:], uint64(time.Now().Add(claim).UnixNano()))
		if _, err := c.Write(buf[:]); err != nil {
			return
		}
	}
}
