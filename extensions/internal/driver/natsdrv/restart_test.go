package natsdrv

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func runServer(t *testing.T, port int, dir string) *server.Server {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	return srv
}

// TestBrokerRestart stops the broker mid-run and starts it again on the same port: Send must
// not block (it fails or buffers), Ack.Wait must resolve, and the consumer must resume.
func TestBrokerRestart(t *testing.T) {
	for _, mode := range []string{"core", "jetstream"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			port, dir := freePort(t), t.TempDir()
			srv := runServer(t, port, dir)
			defer func() { srv.Shutdown() }()

			o := &Options{Mode: mode}
			if mode == "jetstream" {
				o.AckTimeout = 500 * time.Millisecond
			}
			o.Defaults()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			d, err := Open(ctx, driver.Config{URL: fmt.Sprintf("nats://127.0.0.1:%d", port), Destination: "mqbench.restart", Options: o, RunID: "restart"})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if err := d.Setup(ctx); err != nil {
				t.Fatal(err)
			}
			defer d.Teardown(context.Background())
			c, err := d.NewConsumer(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
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
			send := func(n uint64) (driver.Ack, error) {
				v := make([]byte, 64)
				binary.LittleEndian.PutUint64(v, n)
				return p.Send(ctx, driver.Message{Value: v})
			}
			for i := uint64(0); i < 100; i++ {
				if _, err := send(i); err != nil {
					t.Fatal(err)
				}
			}
			waitFor(t, 5*time.Second, func() bool { return got.Load() >= 100 })

			srv.Shutdown()
			srv.WaitForShutdown()
			// While the broker is down: Send returns promptly, an Ack resolves with an error.
			var sendErrs, ackErrs int
			for i := uint64(100); i < 200; i++ {
				start := time.Now()
				a, err := send(i)
				if err != nil {
					sendErrs++
				}
				if el := time.Since(start); el > 3*time.Second {
					t.Fatalf("Send blocked %v while the broker was down", el)
				}
				if a != nil && i%20 == 0 {
					wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
					start := time.Now()
					if err := a.Wait(wctx); err != nil {
						ackErrs++
					}
					wcancel()
					if el := time.Since(start); el > 5*time.Second {
						t.Fatalf("Ack.Wait blocked %v while the broker was down", el)
					}
				}
			}
			t.Logf("while down: %d send errors, %d ack errors", sendErrs, ackErrs)
			if mode == "jetstream" && ackErrs == 0 && sendErrs == 0 {
				t.Errorf("no error surfaced while the broker was down")
			}

			srv = runServer(t, port, dir)
			// The clients reconnect (ReconnectWait 250ms); the consumer resumes.
			deadline := time.Now().Add(20 * time.Second)
			n := uint64(1_000_000)
			for afterRestart.Load() == 0 && time.Now().Before(deadline) {
				_, _ = send(n)
				n++
				time.Sleep(50 * time.Millisecond)
			}
			if afterRestart.Load() == 0 {
				t.Fatalf("consumer did not resume after the broker came back (received %d in total)", got.Load())
			}
			t.Logf("resumed: %d messages after restart", afterRestart.Load())
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
