package kafkadrv

import (
	"context"
	"encoding/binary"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

func steady(t *testing.T, o *Options) {
	url := kafkaURL(t)
	ctx := context.Background()
	d, err := Open(ctx, driver.Config{URL: url, Destination: unique("steady"), Options: o, RunID: "steady" + time.Now().Format("150405.000")})
	if err != nil { t.Fatal(err) }
	defer d.Close()
	d.Setup(ctx)
	defer d.Teardown(ctx)
	base := time.Now()
	var mu sync.Mutex
	var lats, acklat []time.Duration
	c, _ := d.NewConsumer(ctx, 0)
	defer c.Close()
	c.Start(ctx, func(v []byte, at time.Time) {
		sent := time.Duration(binary.LittleEndian.Uint64(v))
		mu.Lock(); lats = append(lats, at.Sub(base)-sent); mu.Unlock()
	})
	p, _ := d.NewPublisher(ctx, 0)
	defer p.Close()
	type inf struct{ a driver.Ack; s time.Time }
	ch := make(chan inf, 10000)
	done := make(chan struct{})
	go func() { defer close(done); for x := range ch { x.a.Wait(ctx); acklat = append(acklat, time.Since(x.s)) } }()
	for i := 0; i < 2000; i++ {
		v := make([]byte, 64)
		s := time.Now()
		binary.LittleEndian.PutUint64(v, uint64(time.Since(base)))
		a, _ := p.Send(ctx, driver.Message{Value: v})
		ch <- inf{a, s}
		time.Sleep(time.Millisecond)
	}
	close(ch); <-done
	time.Sleep(time.Second)
	mu.Lock(); defer mu.Unlock()
	slices.Sort(lats)
	slices.Sort(acklat)
	t.Logf("ack p50 %v p99 %v", acklat[1000], acklat[1980])
	t.Logf("e2e n=%d min %v p50 %v p99 %v max %v", len(lats), lats[0], lats[len(lats)/2], lats[len(lats)*99/100], lats[len(lats)-1])
}

func TestTmpSteadyAll(t *testing.T) { steady(t, &Options{}) }
func TestTmpSteady1(t *testing.T) { steady(t, &Options{Acks: "1"}) }
func TestTmpSteady0(t *testing.T) { steady(t, &Options{Acks: "0"}) }
