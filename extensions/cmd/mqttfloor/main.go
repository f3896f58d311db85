// Command mqttfloor is the benchmark floor for mqbench on MQTT: the same open-model load as
// natsfloor (messages due at start + i × period, sent when due, late ones sent at once) and
// the same end-to-end measurement, as a plain Go program on the client libraries mqbench's
// MQTT driver uses (paho.golang for MQTT 5, paho.mqtt.golang for 3.1.1) with no k6 and no
// mqbench code in between, except, with -pacing precise (the default, as mqbench's
// workload.pacing), the same pacer waking Go's timers at the due times. One connection
// publishes, another subscribes to the same topic at the same QoS. `make bench` runs it
// beside bin/k6 on the same broker.
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
)

// options are the run's flags.
type options struct {
	addr, protocol, topic, pacing string
	qos                           int
	size, rate, batch             int
	warmup, duration              time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.addr, "addr", "127.0.0.1:1883", "MQTT server host:port")
	flag.StringVar(&o.protocol, "protocol", "5", `MQTT version: "5" (paho.golang) or "3.1.1" (paho.mqtt.golang)`)
	flag.IntVar(&o.qos, "qos", 0, "QoS of the publishes and of the subscription: 0 or 1")
	flag.StringVar(&o.topic, "topic", fmt.Sprintf("mqbench/floor/%d", os.Getpid()), "topic")
	flag.IntVar(&o.size, "size", 1024, "payload bytes (≥ 24)")
	flag.IntVar(&o.rate, "rate", 1000, "messages per second")
	flag.IntVar(&o.batch, "batch", 1, "messages per tick")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "excluded from the figures")
	flag.DurationVar(&o.duration, "duration", 5*time.Second, "measured time")
	flag.StringVar(&o.pacing, "pacing", "precise", "precise (mqbench's pacer wakes the timers on time) or timer (Go's timers alone)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	flag.StringVar(&fields, "fields", "", "print these result fields (comma-separated JSON names) space-separated instead of the JSON")
	flag.Parse()
	switch {
	case o.pacing != "precise" && o.pacing != "timer":
		usage("-pacing: expected precise or timer, got " + o.pacing)
	case o.size < 24:
		usage("-size: at least 24 bytes (flag, send and intended times)")
	case o.qos != 0 && o.qos != 1:
		usage(fmt.Sprintf("-qos: 0 or 1, got %d", o.qos))
	case o.rate < 1 || o.batch < 1:
		usage("-rate and -batch: positive")
	}
	// bin/k6's garbage-collector setting (extensions/cmd/k6), as natsfloor: both libraries
	// allocate every received message. GOGC set in the environment wins.
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(200)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			usage("-cpuprofile: " + err.Error())
		}
		defer pprof.StopCPUProfile()
	}
	r, err := run(o)
	if err == nil {
		err = report(r)
	}
	if err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "mqttfloor:", err)
		os.Exit(1)
	}
}

func usage(msg string) {
	fmt.Fprintln(os.Stderr, "mqttfloor:", msg)
	os.Exit(2)
}

// Payload layout: byte 0 is 1 for a message due after the warm-up, bytes 8-15 the send
// time and 16-23 the due (intended) time, both as nanoseconds since the run's epoch: the
// publisher and the subscriber are one process, so one monotonic clock times both ends.
func run(o options) (result, error) {
	epoch := time.Now()
	h := hdr.New(1, int64(time.Hour), 3)
	hi := hdr.New(1, int64(time.Hour), 3) // from the intended send time: no coordinated omission
	lag := hdr.New(1, int64(time.Hour), 3)
	var received atomic.Int64
	var firstRecv, lastRecv atomic.Int64
	onMessage := func(m []byte) {
		now := int64(time.Since(epoch))
		if len(m) < 24 || m[0] == 0 { // sent during the warm-up (by schedule, not by send time)
			return
		}
		_ = h.RecordValue(now - int64(binary.LittleEndian.Uint64(m[8:])))
		_ = hi.RecordValue(now - int64(binary.LittleEndian.Uint64(m[16:])))
		if received.Add(1) == 1 {
			firstRecv.Store(now)
		}
		lastRecv.Store(now)
	}
	qos := byte(o.qos)
	sub, err := dial(o.protocol, o.addr, clientID("sub"), o.topic, qos, onMessage)
	if err != nil {
		return result{}, err
	}
	defer sub.close()
	pub, err := dial(o.protocol, o.addr, clientID("pub"), o.topic, qos, nil)
	if err != nil {
		return result{}, err
	}
	defer pub.close()

	pool := make([]byte, o.size+4096)
	for i := range pool {
		pool[i] = byte(rand.Uint32())
	}
	period := time.Duration(float64(o.batch) * 1e9 / float64(o.rate))
	ticks := int64((o.warmup + o.duration) / period)
	// The schedule starts now, after the connects; the payload's times stay on epoch's
	// clock (set before the subscriber could run).
	start := time.Now()
	base := start.Sub(epoch)
	var sent int64
	var lateMax time.Duration
	cpuStart := floor.CPUUsed()
	if o.pacing == "precise" {
		defer pacer.Default.Add(start, period, start.Add(time.Duration(ticks)*period))()
	}
	msg := make([]byte, o.size)
	for i := int64(0); i < ticks; i++ {
		due := time.Duration(i) * period
		if wait := due - time.Since(start); wait > 0 {
			time.Sleep(wait)
		}
		if late := time.Since(start) - due; due >= o.warmup {
			_ = lag.RecordValue(int64(max(late, 0)))
			lateMax = max(lateMax, late)
		}
		for b := 0; b < o.batch; b++ {
			off := rand.IntN(4096)
			copy(msg, pool[off:off+o.size])
			msg[0] = 0
			if due >= o.warmup {
				msg[0] = 1
			}
			binary.LittleEndian.PutUint64(msg[8:], uint64(time.Since(epoch)))
			binary.LittleEndian.PutUint64(msg[16:], uint64(base+due))
			reuse, err := pub.publish(msg)
			if err != nil {
				return result{}, fmt.Errorf("publish: %v", err)
			}
			if !reuse { // the library still holds it: a fresh buffer for the next one
				msg = make([]byte, o.size)
			}
			if due >= o.warmup {
				sent++
			}
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for received.Load() < sent && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cpu := floor.CPUUsed() - cpuStart
	r := result{Protocol: o.protocol, QoS: o.qos, Figures: floor.Figures{Rate: o.rate, Batch: o.batch, Size: o.size, Pacing: o.pacing}}
	r.Measured(floor.Run{Sent: sent, Received: received.Load(), Sending: o.duration,
		Receiving: time.Duration(lastRecv.Load() - firstRecv.Load()), E2E: h, Intended: hi, Lag: lag, LateMax: lateMax, CPU: cpu})
	return r, nil
}
