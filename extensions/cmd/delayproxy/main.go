// Command delayproxy is a TCP proxy on 127.0.0.1 that holds every byte the client sends for a
// while, keeping order and throughput: the "real regression" of the regression gate's
// measurement (scripts/gate-noise.sh). Each chunk read from the client is stamped and queued;
// every millisecond a writer sends every chunk whose stamp plus the delay has passed, so each
// message is held between -delay and -delay + 1 ms (Go's timers do not wake sooner than 1 ms)
// without throttling the stream (a sleep per chunk would queue them). With -precise the writer
// instead waits for each chunk's own due time in the kernel (nanosleep: a Go timer would wake up
// to a millisecond late, a spin would take the CPU the measured processes need), so every
// message is held -delay plus the kernel's wake-up slack (about 60 us here): a shift of a
// known size that costs no CPU.
//
//	delayproxy -listen 127.0.0.1:14222 -target 127.0.0.1:4222 -delay 0s
//	delayproxy -listen 127.0.0.1:14222 -target 127.0.0.1:4222 -delay 200us -precise
package main

import (
	"flag"
	"io"
	"log"
	"net"
	"strings"
	"syscall"
	"time"
)

type chunk struct {
	b  []byte
	at time.Time
}

func main() {
	listen := flag.String("listen", "127.0.0.1:14222", "address to listen on (loopback only)")
	target := flag.String("target", "127.0.0.1:4222", "the broker")
	delay := flag.Duration("delay", 0, "least time everything the client sends is held (plus up to 1 ms)")
	precise := flag.Bool("precise", false, "hold each chunk for -delay plus the kernel's wake-up slack")
	flag.Parse()
	if !strings.HasPrefix(*listen, "127.") && !strings.HasPrefix(*listen, "localhost:") {
		log.Fatalf("delayproxy: %s is not a loopback address", *listen)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go serve(c, *target, *delay, *precise)
	}
}

func serve(client net.Conn, target string, delay time.Duration, precise bool) {
	server, err := net.Dial("tcp", target)
	if err != nil {
		log.Print(err)
		_ = client.Close()
		return
	}
	go func() { // server → client unchanged
		_, _ = io.Copy(client, server)
		_ = client.Close()
	}()
	q := make(chan chunk, 1<<16)
	if precise {
		go writeEach(q, server, delay)
	} else {
		go writeTicked(q, server, delay)
	}
	for {
		buf := make([]byte, 64<<10)
		n, err := client.Read(buf)
		if n > 0 {
			q <- chunk{buf[:n], time.Now()}
		}
		if err != nil {
			close(q)
			return
		}
	}
}

// writeEach sends each chunk at its stamp plus delay, sleeping in the kernel until then.
func writeEach(q <-chan chunk, server net.Conn, delay time.Duration) {
	defer server.Close()
	for ch := range q {
		if left := time.Until(ch.at.Add(delay)); left > 0 {
			ts := syscall.NsecToTimespec(left.Nanoseconds())
			_ = syscall.Nanosleep(&ts, nil) // EINTR: sent a little early, still in order
		}
		if _, err := server.Write(ch.b); err != nil {
			return
		}
	}
}

// writeTicked sends, on each 1 ms tick, every chunk that is due.
func writeTicked(q <-chan chunk, server net.Conn, delay time.Duration) {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	defer server.Close()
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
		for n < len(held) && !held[n].at.Add(delay).After(now) {
			if _, err := server.Write(held[n].b); err != nil {
				return
			}
			n++
		}
		held = held[n:]
	}
}
