package kafkadrv

import (
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// TestBrokerDeath kills the broker (SIGKILL, data kept) with scripts/brokers/kill.sh and
// starts it again. It only runs with MQBENCH_KAFKA_FAULT_TEST=1, because it takes the shared
// broker away from every other test: run it alone (go test -run TestBrokerDeath).
//
// It checks: a Send while the broker is down does not block; its Ack fails within
// request_timeout; a consumer's Close returns promptly with the broker down; and a consumer
// that stays open resumes by itself once the broker is back (franz-go reconnects).
func TestBrokerDeath(t *testing.T) {
	if os.Getenv("MQBENCH_KAFKA_FAULT_TEST") != "1" {
		t.Skip("set MQBENCH_KAFKA_FAULT_TEST=1 to kill and restart the broker started by scripts/brokers (run this test alone)")
	}
	url := kafkaURL(t)
	scripts, err := filepath.Abs("../../../../scripts/brokers")
	if err != nil {
		t.Fatal(err)
	}
	broker := func(script string) {
		t.Helper()
		out, err := exec.Command(filepath.Join(scripts, script), "kafka").CombinedOutput()
		t.Logf("%s kafka: %s", script, out)
		if err != nil {
			t.Fatalf("%s kafka: %v", script, err)
		}
	}
	defer func() {
		if t.Failed() {
			_ = exec.Command(filepath.Join(scripts, "start.sh"), "kafka").Run()
		}
	}()

	const requestTimeout = 3 * time.Second
	o := &Options{RequestTimeout: requestTimeout}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	topic := unique("death")
	d, err := Open(ctx, driver.Config{URL: url, Destination: topic, Options: o, RunID: "death"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	defer d.Teardown(context.Background())

	var got, after atomic.Int64
	deliver := func(v []byte, _ time.Time) {
		got.Add(1)
		if binary.LittleEndian.Uint64(v) >= 1_000_000 {
			after.Add(1)
		}
	}
	stay, err := d.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stay.Close()
	if err := stay.Start(ctx, deliver); err != nil {
		t.Fatal(err)
	}
	closer, err := d.NewConsumer(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := closer.Start(ctx, deliver); err != nil {
		t.Fatal(err)
	}
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	send := func(n uint64) (driver.Ack, error) {
		v := make([]byte, 64)
		binary.LittleEndian.PutUint64(v, n)
		return p.Send(ctx, driver.Message{Value: v})
	}
	for i := uint64(0); i < 100; i++ {
		a, err := send(i)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	waitCount(t, &got, 100)

	broker("kill.sh")
	var acks []driver.Ack
	for i := uint64(100); i < 110; i++ {
		start := time.Now()
		a, err := send(i)
		if el := time.Since(start); el > time.Second {
			t.Errorf("Send blocked %v with the broker down", el)
		}
		if err != nil {
			t.Logf("Send with the broker down: %v", err)
			continue
		}
		acks = append(acks, a)
	}
	start := time.Now()
	failed := 0
	for _, a := range acks {
		wctx, wcancel := context.WithTimeout(ctx, requestTimeout+5*time.Second)
		err := a.Wait(wctx)
		wcancel()
		if err != nil {
			failed++
			if failed == 1 {
				t.Logf("Ack with the broker down, after %v: %v", time.Since(start), err)
			}
		}
	}
	if failed != len(acks) {
		t.Errorf("%d of %d Acks failed with the broker down, want all", failed, len(acks))
	}
	t.Logf("all %d Acks resolved %v after the kill (request_timeout %v)", len(acks), time.Since(start), requestTimeout)

	start = time.Now()
	closer.Close()
	if el := time.Since(start); el > 7*time.Second {
		t.Errorf("consumer Close took %v with the broker down", el)
	}
	t.Logf("consumer Close with the broker down took %v", time.Since(start))

	broker("start.sh")
	back := time.Now()
	deadline := time.Now().Add(60 * time.Second)
	n := uint64(1_000_000)
	for after.Load() == 0 && time.Now().Before(deadline) {
		if a, err := send(n); err == nil {
			wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
			_ = a.Wait(wctx)
			wcancel()
		}
		n++
		time.Sleep(100 * time.Millisecond)
	}
	if after.Load() == 0 {
		t.Fatalf("the consumer that stayed open did not resume after the broker came back")
	}
	t.Logf("after the restart: the open consumer resumed within %v; consumer errors while down: %d",
		time.Since(back).Round(100*time.Millisecond), stay.(*consumer).Errors())
}
