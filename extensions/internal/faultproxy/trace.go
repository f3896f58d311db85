package faultproxy

import (
	"bytes"
	"fmt"
	"time"
)

// direction is which way a chunk goes.
type direction int

const (
	toBroker direction = iota // what clients send
	toClient                  // what the broker sends back
)

// Passage is the way of one chunk through the proxy that held traced frames: when it was
// read, when written on, and how many frames it held.
type Passage struct {
	Read, Written time.Time
	Frames        int
}

// Trace counts, in every chunk a connection accepted from now on carries, the frames that
// start with toBroker (from clients) and toClient (from the broker): e.g. "PUB subject " and
// "MSG subject ". With one publisher and one subscriber, the k-th frame one way and the k-th
// the other are one message's way in and out, so Passages gives each message's time through
// the proxy, measured apart from the client that reports it. (Not in Ticked mode with a delay.)
func (p *Proxy) Trace(toBrokerFrame, toClientFrame []byte) {
	p.mu.Lock()
	p.trace = [2][]byte{append([]byte(nil), toBrokerFrame...), append([]byte(nil), toClientFrame...)}
	p.mu.Unlock()
}

// Passages lists, in the order they were written on, the chunks that held traced frames: those
// from clients (up) and those from the broker (down).
func (p *Proxy) Passages() (up, down []Passage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Passage(nil), p.passages[toBroker]...), append([]Passage(nil), p.passages[toClient]...)
}

// frameCounter counts a frame's occurrences in a stream read in chunks, one cut by a read
// included: it keeps the last len(frame)-1 bytes of the stream for the next chunk's start.
type frameCounter struct{ tail []byte }

func (c *frameCounter) count(frame, b []byte) int {
	if len(frame) == 0 {
		return 0
	}
	n := bytes.Count(b, frame)
	if len(c.tail) > 0 { // the tail and the chunk's start are each shorter than a frame
		n += bytes.Count(append(append([]byte(nil), c.tail...), b[:min(len(frame)-1, len(b))]...), frame)
	}
	keep := len(frame) - 1
	if len(b) >= keep {
		c.tail = append(c.tail[:0], b[len(b)-keep:]...)
	} else {
		c.tail = append(c.tail, b...)
		c.tail = append([]byte(nil), c.tail[max(0, len(c.tail)-keep):]...)
	}
	return n
}

// Transits pairs the k-th traced frame in with the k-th out and gives each message's time
// through the proxy, read from its sender to written to its receiver, in the order sent. The
// counts must match (one publisher, one subscriber, nothing lost), else pairing means nothing.
func Transits(up, down []Passage) ([]time.Duration, error) {
	in, out := expand(up, func(p Passage) time.Time { return p.Read }), expand(down, func(p Passage) time.Time { return p.Written })
	if len(in) != len(out) {
		return nil, fmt.Errorf("%d frames in, %d out", len(in), len(out))
	}
	ts := make([]time.Duration, len(in))
	for k := range in {
		ts[k] = out[k].Sub(in[k])
	}
	return ts, nil
}

// expand lists one instant per frame.
func expand(ps []Passage, at func(Passage) time.Time) []time.Time {
	var ts []time.Time
	for _, p := range ps {
		for range p.Frames {
			ts = append(ts, at(p))
		}
	}
	return ts
}
