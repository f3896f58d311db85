package natsdrv

import (
	"context"
	"encoding/binary"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/cpu"
	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// TestAckCost measures what receiver acknowledgements cost (the numbers behind option ack's
// default): one publisher paced at MQBENCH_ACK_COST_RATE (default 5,000) 1 KB messages a
// second for 5 s into a file stream (R1) on the external server, one consumer, for ack none,
// explicit and batch, interleaved over MQBENCH_ACK_COST_ROUNDS rounds (default 3). It reports
// this process's CPU per message (publisher + consumer: the same publisher in every mode, so
// the differences are the consumer's) and end-to-end latency p50 / p99. A measurement, run
// only with MQBENCH_ACK_COST=1; it fails when a message is missing or left unacknowledged.
func TestAckCost(t *testing.T) {
	if os.Getenv("MQBENCH_ACK_COST") != "1" {
		t.Skip("a measurement: MQBENCH_ACK_COST=1 runs it")
	}
	url := drivertest.BrokerURL(t, "nats")
	rate := envInt(t, "MQBENCH_ACK_COST_RATE", 5000)
	rounds := envInt(t, "MQBENCH_ACK_COST_ROUNDS", 3)
	modes := []string{"none", "explicit", "batch"}
	cpuPer, drainCPU, drainRate := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	for r := range rounds {
		for _, mode := range modes {
			res := ackCostRun(t, url, mode, rate, 5*time.Second)
			t.Logf("round %d %-8s paced: %d msgs, %.2f us CPU/msg, e2e p50 %v p99 %v", r+1, mode, res.n, res.cpuPerMsg, res.p50, res.p99)
			cpuPer[mode] = append(cpuPer[mode], res.cpuPerMsg)
			dc, dr := ackDrainRun(t, url, mode, 50000)
			t.Logf("round %d %-8s drain: 50000 msgs, %.2f us CPU/msg, %.0f msg/s", r+1, mode, dc, dr)
			drainCPU[mode], drainRate[mode] = append(drainCPU[mode], dc), append(drainRate[mode], dr)
		}
	}
	for _, mode := range modes {
		t.Logf("%-8s median: paced %.2f us CPU/msg; drain %.2f us CPU/msg, %.0f msg/s",
			mode, median(cpuPer[mode]), median(drainCPU[mode]), median(drainRate[mode]))
	}
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

// ackDrainRun publishes n 1 KB messages with no consumer, then times one consumer taking them
// all as fast as it can: the consumer's CPU per message (nothing else runs in the process
// meanwhile) and its rate.
func ackDrainRun(t *testing.T, url, mode string, n int) (cpuPerMsgUS, perSecond float64) {
	o := &Options{Mode: "jetstream", Storage: "file", Ack: mode}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o.Defaults()
	nd := openSetUp(t, ctx, url, o)
	p, err := nd.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	acks := make([]driver.Ack, 0, n)
	v := make([]byte, 1024)
	for range n {
		a, err := p.Send(ctx, driver.Message{Value: v})
		if err != nil {
			t.Fatal(err)
		}
		acks = append(acks, a)
	}
	for _, a := range acks {
		if err := a.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	p.Close()
	c, err := nd.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var got sync.WaitGroup
	got.Add(n)
	cpu0, t0 := cpu.Used(), time.Now()
	if err := c.Start(ctx, func([]byte, time.Time) { got.Done() }); err != nil {
		t.Fatal(err)
	}
	got.Wait()
	el, used := time.Since(t0), cpu.Used()-cpu0
	return float64(used.Microseconds()) / float64(n), float64(n) / el.Seconds()
}

type ackCost struct {
	n         int
	cpuPerMsg float64 // microseconds
	p50, p99  time.Duration
}

func ackCostRun(t *testing.T, url, mode string, rate int, d time.Duration) ackCost {
	o := &Options{Mode: "jetstream", Storage: "file", Ack: mode}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o.Defaults()
	nd := openSetUp(t, ctx, url, o)
	n := rate * int(d/time.Second)
	var mu sync.Mutex
	lat := make([]time.Duration, 0, n)
	done := make(chan struct{})
	c, err := nd.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx, func(v []byte, at time.Time) {
		sent := time.Unix(0, int64(binary.LittleEndian.Uint64(v)))
		mu.Lock()
		lat = append(lat, at.Sub(sent))
		if len(lat) == n {
			close(done)
		}
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	p, err := nd.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	acks := make(chan driver.Ack, 65536)
	ackDone := make(chan error, 1)
	go func() {
		var first error
		for a := range acks {
			if err := a.Wait(ctx); err != nil && first == nil {
				first = err
			}
		}
		ackDone <- first
	}()
	cpu0 := cpu.Used()
	start := time.Now()
	interval := time.Second / time.Duration(rate)
	for i := range n {
		if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
			time.Sleep(wait)
		}
		v := make([]byte, 1024)
		binary.LittleEndian.PutUint64(v, uint64(time.Now().UnixNano()))
		a, err := p.Send(ctx, driver.Message{Value: v})
		if err != nil {
			t.Fatal(err)
		}
		acks <- a
	}
	close(acks)
	if err := <-ackDone; err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("%s: received %d of %d", mode, len(lat), n)
	}
	used := cpu.Used() - cpu0
	waitUntil(t, "nothing awaiting an ack", func() bool {
		info, err := nd.js.Consumer(ctx, nd.stream, nd.durable)
		return err == nil && info.CachedInfo().NumAckPending == 0
	})
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(lat)
	return ackCost{n: n, cpuPerMsg: float64(used.Microseconds()) / float64(n), p50: lat[n/2], p99: lat[n*99/100]}
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}
