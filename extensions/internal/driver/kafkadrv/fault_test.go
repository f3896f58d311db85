package kafkadrv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// scriptOutage kills the broker started by scripts/brokers (SIGKILL, data kept) with kill.sh
// and starts it again with start.sh.
type scriptOutage struct {
	t       *testing.T
	scripts string
}

var _ drivertest.Outage = scriptOutage{}

func (o scriptOutage) Down()           { o.run(o.t, "kill.sh") }
func (o scriptOutage) Up(t *testing.T) { o.run(t, "start.sh") }

func (o scriptOutage) run(t *testing.T, script string) {
	t.Helper()
	out, err := exec.Command(filepath.Join(o.scripts, script), "kafka").CombinedOutput()
	t.Logf("%s kafka: %s", script, out)
	if err != nil {
		t.Fatalf("%s kafka: %v", script, err)
	}
}

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
	t.Cleanup(func() {
		if t.Failed() {
			_ = exec.Command(filepath.Join(scripts, "start.sh"), "kafka").Run()
		}
	})
	const requestTimeout = 3 * time.Second
	drivertest.RunRestart(t, drivertest.Restart{
		Driver: "kafka",
		Config: driver.Config{URL: url, Destination: unique("death"), Options: &Options{RequestTimeout: requestTimeout}, RunID: "death"},
		Outage: scriptOutage{t: t, scripts: scripts},
		Away: drivertest.Away{Sends: 10, SendWithin: time.Second, AckEvery: 1, AcksAfter: true,
			AckTimeout: requestTimeout + 5*time.Second, AcksFail: true, CloseConsumer: 7 * time.Second},
		Back: drivertest.Back{Resume: drivertest.Receives, Within: 60 * time.Second},
	})
}
