// Command natsfloor is the benchmark floor for mqbench on NATS core: the same open-model
// load (messages due at start + i × period, sent when due, late ones sent at once) and the
// same end-to-end measurement, written as a plain Go program on nats.go with no k6 and no
// mqbench code in between, except, with -pacing precise (the default, as mqbench's
// workload.pacing), the same pacer waking Go's timers at the due times, so the two are paced
// alike. `make bench` runs it beside bin/k6 on the same broker.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/mqbench/xk6-mqbench/internal/floor"
	"github.com/mqbench/xk6-mqbench/internal/pacer"
	"github.com/nats-io/nats.go"
)

// result is a run's figures, as every floor program prints them.
type result = floor.Figures

func main() {
	url := flag.String("url", nats.DefaultURL, "NATS server")
	subject := flag.String("subject", "mqbench.floor", "subject")
	size := flag.Int("size", 1024, "payload bytes (≥ 24)")
	rate := flag.Int("rate", 1000, "messages per second")
	batch := flag.Int("batch", 1, "messages per tick")
	warmup := flag.Duration("warmup", time.Second, "excluded from the figures")
	duration := flag.Duration("duration", 5*time.Second, "measured time")
	pacing := flag.String("pacing", "precise", "precise (mqbench's pacer wakes the timers on time) or timer (Go's timers alone)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	flag.StringVar(&fields, "fields", "", "print these result fields (comma-separated JSON names) space-separated instead of the JSON")
	flag.Parse()
	if *pacing != "precise" && *pacing != "timer" {
		fmt.Fprintln(os.Stderr, "natsfloor: -pacing: expected precise or timer, got", *pacing)
		os.Exit(2)
	}
	if *size < 24 {
		fmt.Fprintln(os.Stderr, "natsfloor: -size: at least 24 bytes (flag, send and intended times)")
		os.Exit(2)
	}
	// The same garbage-collector setting as bin/k6 (extensions/cmd/k6): nats.go allocates
	// every received message, so the floor's GC work is as large as mqbench's. GOGC set in
	// the environment wins.
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(200)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "natsfloor: -cpuprofile:", err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*url, *subject, *size, *rate, *batch, *warmup, *duration, *pacing); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "natsfloor:", err)
		os.Exit(1)
	}
}

func run(url, subject string, size, rate, batch int, warmup, duration time.Duration, pacing string) error {
	pub, err := nats.Connect(url, nats.Name("natsfloor-pub"))
	if err != nil {
		return err
	}
	defer pub.Close()
	sub, err := nats.Connect(url, nats.Name("natsfloor-sub"))
	if err != nil {
		return err
	}
	defer sub.Close()

	epoch := time.Now()
	h := hdr.New(1, int64(time.Hour), 3)
	hi := hdr.New(1, int64(time.Hour), 3) // from the intended send time
	lag := hdr.New(1, int64(time.Hour), 3)
	var received atomic.Int64
	var firstRecv, lastRecv atomic.Int64
	s, err := sub.Subscribe(subject, func(m *nats.Msg) {
		now := int64(time.Since(epoch))
		sent := int64(binary.LittleEndian.Uint64(m.Data[8:]))
		if m.Data[0] == 0 { // sent during the warm-up (by schedule, not by send time)
			return
		}
		_ = h.RecordValue(now - sent) // one subscriber goroutine: no lock needed
		_ = hi.RecordValue(now - int64(binary.LittleEndian.Uint64(m.Data[16:])))
		if received.Add(1) == 1 {
			firstRecv.Store(now)
		}
		lastRecv.Store(now)
	})
	if err != nil {
		return err
	}
	_ = s.SetPendingLimits(-1, -1)
	if err := sub.Flush(); err != nil {
		return err
	}

	pool := make([]byte, size+4096)
	for i := range pool {
		pool[i] = byte(rand.Uint32())
	}
	period := time.Duration(float64(batch) * 1e9 / float64(rate))
	ticks := int64((warmup + duration) / period)
	var sent int64
	var lateMax time.Duration
	cpuStart := floor.CPUUsed()
	if pacing == "precise" {
		defer pacer.Default.Add(epoch, period, epoch.Add(time.Duration(ticks)*period))()
	}
	// One message buffer for every send: Publish copies it into the connection's write
	// buffer before it returns (a fresh buffer per message was a fifth of the floor's CPU in
	// allocation and GC at 300,000 msg/s, work mqbench's generator does not do either).
	msg := make([]byte, size)
	for i := int64(0); i < ticks; i++ {
		due := time.Duration(i) * period
		if wait := due - time.Since(epoch); wait > 0 {
			time.Sleep(wait)
		}
		if late := time.Since(epoch) - due; due >= warmup {
			_ = lag.RecordValue(int64(max(late, 0)))
			lateMax = max(lateMax, late)
		}
		for b := 0; b < batch; b++ {
			off := rand.IntN(4096)
			copy(msg, pool[off:off+size])
			msg[0] = 0
			if due >= warmup {
				msg[0] = 1
			}
			binary.LittleEndian.PutUint64(msg[8:], uint64(time.Since(epoch)))
			binary.LittleEndian.PutUint64(msg[16:], uint64(due))
			if err := pub.Publish(subject, msg); err != nil {
				return err
			}
			if due >= warmup {
				sent++
			}
		}
	}
	_ = pub.Flush()
	deadline := time.Now().Add(5 * time.Second)
	for received.Load() < sent && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cpu := floor.CPUUsed() - cpuStart
	r := result{Rate: rate, Batch: batch, Size: size, Pacing: pacing}
	r.Measured(floor.Run{Sent: sent, Received: received.Load(), Sending: duration,
		Receiving: time.Duration(lastRecv.Load() - firstRecv.Load()), E2E: h, Intended: hi, Lag: lag, LateMax: lateMax, CPU: cpu})
	return report(r)
}

// fields, when set, names the result's fields printed (for scripts) instead of its JSON.
var fields string

func report(r result) error { return floor.Report(r, fields) }
