// Command delayproxy is a TCP proxy on 127.0.0.1 that holds every byte the client sends for a
// while, keeping order and throughput: the "real regression" of the regression gate's
// measurement (the gate bench section). Each chunk read from the client is stamped and queued;
// every millisecond a writer sends every chunk whose stamp plus the delay has passed, so each
// message is held between -delay and -delay + 1 ms (Go's timers do not wake sooner than 1 ms)
// without throttling the stream (a sleep per chunk would queue them). With -precise the writer
// instead waits for each chunk's own due time in the kernel (nanosleep: a spin would take the
// CPU the measured processes need), so every message is held -delay plus the kernel's wake-up
// slack (tens of microseconds): a shift of a known size that costs no CPU.
// The proxy itself is internal/faultproxy (Ticked and Sleep modes).
//
//	delayproxy -listen 127.0.0.1:14222 -target 127.0.0.1:4222 -delay 0s
//	delayproxy -listen 127.0.0.1:14222 -target 127.0.0.1:4222 -delay 200us -precise
package main

import (
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/mqbench/xk6-mqbench/internal/faultproxy"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:14222", "address to listen on (loopback only)")
	target := flag.String("target", "127.0.0.1:4222", "the broker")
	delay := flag.Duration("delay", 0, "least time everything the client sends is held (plus up to 1 ms)")
	precise := flag.Bool("precise", false, "hold each chunk for -delay plus the kernel's wake-up slack")
	flag.Parse()
	mode := faultproxy.Ticked
	if *precise {
		mode = faultproxy.Sleep
	}
	p, err := faultproxy.Listen(*listen, *target, *delay, mode)
	if err != nil {
		log.Fatalf("delayproxy: %v", err)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	<-sigs
	_ = p.Close()
}
