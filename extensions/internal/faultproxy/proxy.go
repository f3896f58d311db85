// Package faultproxy is a TCP proxy on 127.0.0.1 that injects known faults between a client
// and a broker: a delay on everything the client sends, and stalls during which nothing is
// forwarded either way (what a SIGSTOPped server looks like to its clients). The self-check
// (internal/selfcheck) and cmd/delayproxy (the gate measurement) use it.
//
// Each chunk read from one side is stamped and queued; a writer per direction sends it once
// its stamp plus the delay has passed and no stall is in force. Reading goes on during a
// stall (the queue stands in for the socket buffers a stopped server's kernel still fills), so
// a client never blocks on a stalled broker unless the queue is full. Trace times each message
// through the proxy (trace.go), a measure apart from the client that reports it.
package faultproxy

import (
	"bytes"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

// Mode is how the client→broker writer waits for a chunk's due time.
type Mode int

const (
	// Sleep waits for each chunk's own due time with the kernel's nanosleep on a thread of
	// its own (timer slack 1 ns on Linux): precise to tens of microseconds, no CPU spent
	// spinning. The self-check's mode.
	Sleep Mode = iota
	// Spin sleeps while more than a millisecond is left, then spins (yielding) to the due
	// time: precise, at the cost of CPU through each chunk's last millisecond.
	Spin
	// Ticked sends, on each 1 ms tick, every chunk that is due: each is held between the
	// delay and the delay + 1 ms (Go's timers do not wake sooner), and it costs nearly no CPU.
	Ticked
)

// queueChunks bounds what one direction holds (a full queue blocks its reader, as full
// socket buffers would).
const queueChunks = 1 << 16

// Proxy forwards every connection accepted on its listener to Target.
type Proxy struct {
	Target string
	Delay  time.Duration // added to everything a client sends
	Mode   Mode

	ln net.Listener

	mu         sync.Mutex
	stallFrom  time.Time // a stall in force or planned: [stallFrom, stallUntil)
	stallUntil time.Time
	watch      []byte          // see Watch
	watchFn    func(time.Time) // called once, at the first chunk holding watch
	conns      []net.Conn
	closed     bool
	holds      []time.Duration // see Holds
	trace      [2][]byte       // see Trace: the frame each direction counts
	passages   [2][]Passage    // see Passages
}

// Listen starts a proxy on addr (a loopback address; "127.0.0.1:0" picks a free port) to
// target. Serve is started in the background; Close stops it.
func Listen(addr, target string, delay time.Duration, mode Mode) (*Proxy, error) {
	if !strings.HasPrefix(addr, "127.") && !strings.HasPrefix(addr, "localhost:") {
		return nil, fmt.Errorf("faultproxy: %s is not a loopback address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	p := &Proxy{Target: target, Delay: delay, Mode: mode, ln: ln}
	go p.serve()
	return p, nil
}

// Addr is the address clients connect to.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Watch calls fn once, with the time it was read, when a chunk a client sends first holds
// pattern (the self-check places its stall from a cell's first publish).
func (p *Proxy) Watch(pattern []byte, fn func(time.Time)) {
	p.mu.Lock()
	p.watch, p.watchFn = append([]byte(nil), pattern...), fn
	p.mu.Unlock()
}

// Stall stops forwarding both ways from from to from+d: a chunk due in that span is sent at
// its end, in order.
func (p *Proxy) Stall(from time.Time, d time.Duration) {
	p.mu.Lock()
	p.stallFrom, p.stallUntil = from, from.Add(d)
	p.mu.Unlock()
}

// Close stops accepting and closes every connection.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	err := p.ln.Close()
	for _, c := range conns {
		_ = c.Close()
	}
	return err
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.conn(c)
	}
}

// conn proxies one client connection: a connection to the broker, and a reader and a writer
// each way.
func (p *Proxy) conn(client net.Conn) {
	server, err := net.Dial("tcp", p.Target)
	if err != nil {
		_ = client.Close()
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		_ = client.Close()
		_ = server.Close()
		return
	}
	p.conns = append(p.conns, client, server)
	p.mu.Unlock()
	up, down := make(chan chunk, queueChunks), make(chan chunk, queueChunks)
	p.mu.Lock()
	upFrame, downFrame := p.trace[toBroker], p.trace[toClient]
	p.mu.Unlock()
	go read(client, up, p.look, upFrame)
	go read(server, down, nil, downFrame)
	go p.write(down, client, 0, Ticked, toClient)
	p.write(up, server, p.Delay, p.Mode, toBroker)
}

type chunk struct {
	b      []byte
	at     time.Time
	frames int // how many of the traced frame it holds (Trace)
}

// read queues what src sends, stamped, until it closes; look sees every chunk first; frame,
// when set, is counted in each chunk (one that straddles two reads counted in the second).
func read(src net.Conn, q chan<- chunk, look func([]byte, time.Time), frame []byte) {
	defer close(q)
	var c frameCounter
	for {
		buf := make([]byte, 64<<10)
		n, err := src.Read(buf)
		if n > 0 {
			now := time.Now()
			if look != nil {
				look(buf[:n], now)
			}
			q <- chunk{buf[:n], now, c.count(frame, buf[:n])}
		}
		if err != nil {
			return
		}
	}
}

// look fires the watch on the first chunk holding its pattern.
func (p *Proxy) look(b []byte, at time.Time) {
	p.mu.Lock()
	fn := p.watchFn
	if fn != nil && bytes.Contains(b, p.watch) {
		p.watchFn = nil
	} else {
		fn = nil
	}
	p.mu.Unlock()
	if fn != nil {
		fn(at)
	}
}

// write sends each chunk of q to dst at its due time (stamp + delay, pushed to a stall's
// end), closing dst when q ends or a write fails; towards the broker it keeps each chunk's
// hold (Holds), either way the passage of each chunk holding a traced frame (Passages).
func (p *Proxy) write(q <-chan chunk, dst net.Conn, delay time.Duration, mode Mode, dir direction) {
	defer dst.Close()
	if mode == Ticked && delay > 0 {
		p.writeTicked(q, dst, delay)
		return
	}
	w := newWaiter(mode)
	for ch := range q {
		w.until(ch.at.Add(delay))
		for end := p.stalledUntil(time.Now()); !end.IsZero(); end = p.stalledUntil(time.Now()) {
			w.until(end)
		}
		if _, err := dst.Write(ch.b); err != nil {
			return
		}
		now := time.Now()
		p.mu.Lock()
		if dir == toBroker {
			p.holds = append(p.holds, now.Sub(ch.at))
		}
		if ch.frames > 0 {
			p.passages[dir] = append(p.passages[dir], Passage{Read: ch.at, Written: now, Frames: ch.frames})
		}
		p.mu.Unlock()
	}
}

// Holds lists how long each chunk clients sent was held, read to written (every mode but
// Ticked with a delay): what the proxy really injected, its own lateness on a busy machine
// included.
func (p *Proxy) Holds() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]time.Duration(nil), p.holds...)
}

// stalledUntil is the end of the stall in force at t, zero when none is.
func (p *Proxy) stalledUntil(t time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stallUntil.IsZero() && !t.Before(p.stallFrom) && t.Before(p.stallUntil) {
		return p.stallUntil
	}
	return time.Time{}
}

// writeTicked sends, on each 1 ms tick, every chunk that is due.
func (p *Proxy) writeTicked(q <-chan chunk, dst net.Conn, delay time.Duration) {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	var held []chunk
	open := true
	for open || len(held) > 0 {
		now := <-tick.C
	drain:
		for open {
			select {
			case ch, ok := <-q:
				if !ok {
					open = false
					break drain
				}
				held = append(held, ch)
			default:
				break drain
			}
		}
		n := 0
		if !p.stalledUntil(now).IsZero() {
			continue
		}
		for n < len(held) && !held[n].at.Add(delay).After(now) {
			if _, err := dst.Write(held[n].b); err != nil {
				return
			}
			n++
		}
		held = held[n:]
	}
}
