package drivertest

import (
	"errors"
	"io"
	"net"
	neturl "net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Proxy is a TCP proxy in front of the broker that a test can kill (close every connection,
// like a crashed broker), take down and bring back on the same address (a broker that
// restarts), or freeze (stop forwarding without closing, like a hung broker or a network
// partition). Clients of protocols without redirects (AMQP 0-9-1, AMQP 1.0) only ever talk to
// the proxy.
type Proxy struct {
	addr   string
	target string
	frozen atomic.Bool
	dead   chan struct{}
	once   sync.Once
	mu     sync.Mutex
	ln     net.Listener // nil while down
	conns  []net.Conn
}

func StartProxy(t *testing.T, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, addr: ln.Addr().String(), target: target, dead: make(chan struct{})}
	go p.accept(ln)
	t.Cleanup(p.Kill)
	return p
}

func (p *Proxy) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		b, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, b)
		p.mu.Unlock()
		go p.pipe(c, b)
		go p.pipe(b, c)
	}
}

// Down closes the listener and every connection: connections break, new ones are refused.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Up listens again on the same address.
func (p *Proxy) Up(t *testing.T) {
	t.Helper()
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ { // the port may linger for a moment
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("proxy back on %s: %v", p.addr, err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go p.accept(ln)
}

func (p *Proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		for p.frozen.Load() {
			select {
			case <-p.dead:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				dst.Close()
			}
			return
		}
	}
}

// Kill closes the listener and every connection, for good.
func (p *Proxy) Kill() {
	p.once.Do(func() {
		close(p.dead)
		p.Down()
	})
}

func (p *Proxy) URL(t *testing.T, broker string) string {
	u, err := neturl.Parse(broker)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = p.addr
	return u.String()
}

// Freeze stops forwarding without closing anything, for good: a hung broker.
func (p *Proxy) Freeze() { p.frozen.Store(true) }
