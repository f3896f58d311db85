package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/ladder"
)

// mqttFloor is bin/mqttfloor (plain paho clients, natsfloor's open-model loop) on the mqtt
// section's broker, speaking protocol, its own topic per process.
type mqttFloor struct{ bin, addr, protocol string }

// mqttfloor builds bin/mqttfloor from extensions/cmd/mqttfloor, as natsfloor is built.
func (e *Env) mqttfloor(addr, protocol string) (mqttFloor, error) {
	bin := filepath.Join(e.Repo, "bin", "mqttfloor")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/mqttfloor")
	cmd.Dir = filepath.Join(e.Repo, "extensions")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return mqttFloor{}, fmt.Errorf("build mqttfloor: %v", err)
	}
	return mqttFloor{bin, addr, protocol}, nil
}

// fields runs mqttfloor at qos and rate (batch messages a tick) for d after a 2 s warm-up,
// precisely paced, and returns the named figures.
func (f mqttFloor) fields(qos, rate, batch int, d time.Duration, names ...string) ([]float64, error) {
	out, err := exec.Command(f.bin, "-addr", f.addr, "-protocol", f.protocol, "-qos", strconv.Itoa(qos),
		"-topic", fmt.Sprintf("mqbench/floor/%d-%d-%d", os.Getpid(), qos, rate), "-warmup", "2s",
		"-rate", strconv.Itoa(rate), "-batch", strconv.Itoa(batch), "-duration", d.String(), "-pacing", "precise",
		"-fields", strings.Join(names, ",")).Output()
	if err != nil {
		return nil, fmt.Errorf("mqttfloor at %d msg/s, QoS %d: %v", rate, qos, err)
	}
	return toolFields("mqttfloor", out, names)
}

// toolFields reads a floor program's -fields output: one number per name, space-separated.
func toolFields(tool string, out []byte, names []string) ([]float64, error) {
	fs := strings.Fields(string(out))
	if len(fs) != len(names) {
		return nil, fmt.Errorf("%s printed %q for %d fields", tool, out, len(names))
	}
	vs := make([]float64, len(fs))
	for i, s := range fs {
		var err error
		if vs[i], err = strconv.ParseFloat(s, 64); err != nil {
			return nil, fmt.Errorf("%s's %s: %q is not a number", tool, names[i], s)
		}
	}
	return vs, nil
}

// mqttFloorProbe is mqttfloor as a ladder's peer, held by natsfloor's rule (floorProbe):
// everything sent was received and the schedule was never LateMax behind.
type mqttFloorProbe struct {
	floor    mqttFloor
	qos      int
	duration time.Duration
}

func (p mqttFloorProbe) Rules() int { return 1 }

func (p mqttFloorProbe) Measure(rate, batch int, _ []bool) ([]bool, string, error) {
	v, err := p.floor.fields(p.qos, rate, batch, p.duration, "sender_rate", "receiver_rate", "schedule_lag_max_us", "sent", "received")
	if err != nil {
		return nil, "", err
	}
	held := v[4] == v[3] && v[3] > 0 && v[2] < float64(LateMax.Microseconds())
	return []bool{held}, fmt.Sprintf("%.0f %.0f %.1fms", v[0], v[1], v[2]/1e3), nil
}

var _ ladder.Probe = mqttFloorProbe{}
