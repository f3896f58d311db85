package redisdrv

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// startRedis runs a private redis-server (no persistence) on port; the test owns and kills it.
func startRedis(t *testing.T, port int) *exec.Cmd {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed; the restart test needs its own server to kill")
	}
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			return cmd
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("redis-server on port %d did not start", port)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func stopRedis(cmd *exec.Cmd) {
	if cmd.ProcessState == nil {
		cmd.Process.Kill()
		cmd.Wait()
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestBrokerRestart kills the broker mid-run: Send must fail promptly instead of blocking, the
// consumer's Close must not hang, and (pub/sub) the consumer resumes once the broker is back.
// The server keeps no data, so in streams mode the group is gone after the restart: there the
// test only checks that nothing blocks.
func TestBrokerRestart(t *testing.T) {
	for _, mode := range []string{"pubsub", "streams"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			port := freePort(t)
			srv := startRedis(t, port)
			defer func() { stopRedis(srv) }()

			o := &Options{Mode: mode}
			o.Defaults()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			d, err := Open(ctx, driver.Config{URL: fmt.Sprintf("redis://127.0.0.1:%d", port), Destination: "mqbench.restart", Options: o, RunID: "restart"})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if err := d.Setup(ctx); err != nil {
				t.Fatal(err)
			}
			c, err := d.NewConsumer(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			var got, afterRestart atomic.Int64
			if err := c.Start(ctx, func(v []byte, _ time.Time) {
				got.Add(1)
				if binary.LittleEndian.Uint64(v) >= 1_000_000 {
					afterRestart.Add(1)
				}
			}); err != nil {
				t.Fatal(err)
			}
			p, err := d.NewPublisher(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			send := func(n uint64) error {
				v := make([]byte, 64)
				binary.LittleEndian.PutUint64(v, n)
				_, err := p.Send(ctx, driver.Message{Value: v})
				return err
			}
			for i := uint64(0); i < 100; i++ {
				if err := send(i); err != nil {
					t.Fatal(err)
				}
			}
			waitFor(t, 5*time.Second, func() bool { return got.Load() >= 100 })

			stopRedis(srv)
			var sendErrs int
			for i := uint64(100); i < 110; i++ {
				start := time.Now()
				if err := send(i); err != nil {
					sendErrs++
				}
				if el := time.Since(start); el > 5*time.Second {
					t.Fatalf("Send blocked %v while the broker was down", el)
				}
			}
			if sendErrs == 0 {
				t.Errorf("Send reported no error while the broker was down")
			}

			srv = startRedis(t, port)
			if mode == "pubsub" {
				deadline := time.Now().Add(20 * time.Second)
				n := uint64(1_000_000)
				for afterRestart.Load() == 0 && time.Now().Before(deadline) {
					_ = send(n)
					n++
					time.Sleep(50 * time.Millisecond)
				}
				if afterRestart.Load() == 0 {
					t.Fatalf("consumer did not resume after the broker came back")
				}
				if err := send(n); err != nil {
					t.Errorf("Send after the broker came back: %v", err)
				}
			}
			stopRedis(srv) // Close must not hang on a dead broker either
			start := time.Now()
			c.Close()
			if el := time.Since(start); el > 6*time.Second {
				t.Errorf("consumer Close took %v with the broker down", el)
			}
			t.Logf("send errors while down: %d; consumer errors: %d; received after restart: %d",
				sendErrs, c.(interface{ Errors() int64 }).Errors(), afterRestart.Load())
		})
	}
}

func waitFor(t *testing.T, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
