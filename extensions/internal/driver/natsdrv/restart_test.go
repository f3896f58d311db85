package natsdrv

import (
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// serverOutage stops the test's own server and starts it again on the same port and store,
// as a real broker restart would (a proxy would keep the server's state in memory).
type serverOutage struct {
	port int
	dir  string
	srv  *server.Server
}

var _ drivertest.Outage = (*serverOutage)(nil)

func startServer(t *testing.T) *serverOutage {
	t.Helper()
	o := &serverOutage{port: drivertest.FreePort(t), dir: t.TempDir()}
	o.Up(t)
	t.Cleanup(func() { o.srv.Shutdown() })
	return o
}

func (o *serverOutage) Down() {
	o.srv.Shutdown()
	o.srv.WaitForShutdown()
}

func (o *serverOutage) Up(t *testing.T) {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: o.port, JetStream: true, StoreDir: o.dir, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	o.srv = srv
}

// TestBrokerRestart stops the broker mid-run and starts it again on the same port: Send must
// not block (it fails or buffers), Ack.Wait must resolve, and the consumer must resume.
func TestBrokerRestart(t *testing.T) {
	for _, mode := range []string{"core", "jetstream"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t)
			o := &Options{Mode: mode}
			if mode == "jetstream" {
				o.AckTimeout = 500 * time.Millisecond
			}
			drivertest.RunRestart(t, drivertest.Restart{
				Driver: "nats",
				Config: driver.Config{URL: fmt.Sprintf("nats://127.0.0.1:%d", srv.port), Destination: "mqbench.restart", Options: o, RunID: "restart"},
				Outage: srv,
				// The clients reconnect (ReconnectWait 250ms); core NATS may buffer meanwhile.
				Away: drivertest.Away{Sends: 100, AckEvery: 20, AckTimeout: 10 * time.Second,
					SendWithin: 3 * time.Second, AckWithin: 5 * time.Second, SomeFail: mode == "jetstream"},
			})
		})
	}
}
