// Command delayproxy is a TCP proxy on 127.0.0.1 that holds every byte the client sends for a
// while, keeping order and throughput: the "real regression" of the regression gate's
// measurement (scripts/gate-noise.sh). Each chunk read from the client is stamped and queued;
// every millisecond a writer sends every chunk whose stamp plus the delay has passed, so each
// message is held between -delay and -delay + 1 ms (Go's timers do not wake sooner than 1 ms)
// without throttling the stream (a sleep per chunk would queue them).
//
//	delayproxy -listen 127.0.0.1:14222 -target 127.0.0.1:4222 -delay 0s
package main

import (
	"flag"
	"io"
	"log"
	"net"
	"strings"
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
		go serve(c, *target, *delay)
	}
}

func serve(client net.Conn, target string, delay time.Duration) {
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
	go func() { // client → server: on each 1 ms tick, every chunk that is due
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
	}()
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
