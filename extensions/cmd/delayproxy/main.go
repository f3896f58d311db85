// Command delayproxy is a TCP proxy on 127.0.0.1 that delays every byte the client sends by a
// fixed time, keeping order and throughput: the "real regression" of the regression gate's
// measurement (scripts/gate-noise.sh). Each chunk read from the client is stamped and queued;
// a writer sends it once its stamp plus the delay has passed, so the delay adds to every
// message's latency without throttling the stream (a sleep per read would).
//
//	delayproxy -listen 127.0.0.1:14222 -target 127.0.0.1:4222 -delay 1ms
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
	delay := flag.Duration("delay", time.Millisecond, "added to everything the client sends")
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
	go func() { // client → server, each chunk released at its stamp + delay
		for ch := range q {
			if d := time.Until(ch.at.Add(delay)); d > 0 {
				time.Sleep(d)
			}
			if _, err := server.Write(ch.b); err != nil {
				break
			}
		}
		_ = server.Close()
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
