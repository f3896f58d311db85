package mqttdrv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// mosquitto is a test's own Mosquitto process on a free port, with persistence in the test's
// directory, for what the shared broker must not go through: a restart, a TLS listener, a
// password file. Down stops it as a service manager would (SIGTERM: Mosquitto writes its
// sessions and queued messages to disk); Up starts it again on the same port and data.
type mosquitto struct {
	port int
	conf string
	cmd  *exec.Cmd
}

var _ drivertest.Outage = (*mosquitto)(nil)

// startMosquitto writes a configuration with extra appended and starts the broker; the test
// owns and stops it.
func startMosquitto(t *testing.T, extra string) *mosquitto {
	t.Helper()
	if _, err := exec.LookPath("mosquitto"); err != nil {
		t.Skip("mosquitto not installed (scripts/brokers/start.sh mosquitto installs it); this test runs its own")
	}
	dir := t.TempDir()
	m := &mosquitto{port: drivertest.FreePort(t), conf: filepath.Join(dir, "mosquitto.conf")}
	anonymous := "true"
	if extra != "" {
		anonymous = "false"
	}
	drivertest.WriteFile(t, m.conf, fmt.Sprintf("listener %d 127.0.0.1\nallow_anonymous %s\npersistence true\npersistence_location %s/\nmax_queued_messages 0\n%s\n",
		m.port, anonymous, dir, extra))
	if os.Geteuid() == 0 {
		// As root, Mosquitto drops to user mosquitto, which cannot write the test's directory.
		f, err := os.OpenFile(m.conf, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = f.WriteString("user root\n")
		_ = f.Close()
	}
	m.Up(t)
	t.Cleanup(m.Down)
	return m
}

func (m *mosquitto) url(scheme string) string {
	return fmt.Sprintf("%s://127.0.0.1:%d", scheme, m.port)
}

func (m *mosquitto) Up(t *testing.T) {
	t.Helper()
	cmd := exec.Command("mosquitto", "-c", m.conf)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m.cmd = cmd
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", m.port))
		if err == nil {
			_ = c.Close()
			return
		}
		if time.Now().After(deadline) {
			m.Down()
			t.Fatalf("mosquitto on port %d did not start", m.port)
		}
	}
}

// Down: SIGTERM and wait, so the persistence file is written; SIGKILL after 10 s.
func (m *mosquitto) Down() {
	if m.cmd == nil || m.cmd.ProcessState != nil {
		return
	}
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = m.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = m.cmd.Process.Kill()
		<-done
	}
}
