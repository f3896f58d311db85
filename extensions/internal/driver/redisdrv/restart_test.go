package redisdrv

import (
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// serverOutage kills the test's own redis-server (no persistence) and starts a new one on the
// same port: a real restart, which loses the server's data.
type serverOutage struct {
	bin  string
	port int
	cmd  *exec.Cmd
}

var _ drivertest.Outage = (*serverOutage)(nil)

// startRedis runs a private redis-server on a free port; the test owns and kills it.
func startRedis(t *testing.T) *serverOutage {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed; the restart test needs its own server to kill")
	}
	o := &serverOutage{bin: bin, port: drivertest.FreePort(t)}
	o.Up(t)
	t.Cleanup(o.Down)
	return o
}

func (o *serverOutage) Up(t *testing.T) {
	t.Helper()
	cmd := exec.Command(o.bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(o.port), "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	o.cmd = cmd
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", o.port))
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			o.Down()
			t.Fatalf("redis-server on port %d did not start", o.port)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (o *serverOutage) Down() {
	if o.cmd.ProcessState == nil {
		o.cmd.Process.Kill()
		o.cmd.Wait()
	}
}

// TestBrokerRestart kills the broker mid-run: Send must fail promptly instead of blocking, the
// consumer's Close must not hang, and (pub/sub) the consumer resumes once the broker is back.
// The server keeps no data, so in streams mode the group is gone after the restart: there the
// test only checks that nothing blocks.
func TestBrokerRestart(t *testing.T) {
	for _, mode := range []string{"pubsub", "streams"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			srv := startRedis(t)
			back := drivertest.Back{Resume: drivertest.Receives}
			if mode == "streams" {
				back.Resume = drivertest.Nothing
			}
			drivertest.RunRestart(t, drivertest.Restart{
				Driver: "redis",
				Config: driver.Config{URL: fmt.Sprintf("redis://127.0.0.1:%d", srv.port), Destination: "mqbench.restart", Options: &Options{Mode: mode}, RunID: "restart"},
				Outage: srv,
				Away:   drivertest.Away{Sends: 10, SendWithin: 5 * time.Second, SomeFail: true},
				Back:   back,
				// Close must not hang on a dead broker either.
				Closing: drivertest.Closing{Down: true, Within: 6 * time.Second},
			})
		})
	}
}
