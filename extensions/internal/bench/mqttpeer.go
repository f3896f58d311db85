package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/ladder"
	"github.com/mqbench/xk6-mqbench/internal/pacer"
	"golang.org/x/sys/unix"
)

// mosquittoPeer is the mqtt section's native tool: Mosquitto's own command-line clients
// (libmosquitto, C), fed the same open-model schedule. No maintained MQTT benchmark program
// builds from the module sources this machine reaches, so the broker's clients stand in:
// mosquitto_pub -l publishes each line of its standard input as one message, as soon as
// it reads it, and mosquitto_sub -F prints each message's arrival time (%U, wall clock, ns)
// and its first 20 bytes. The section writes each line at its due time (precisely paced,
// batch lines a tick in one write); when mosquitto_pub falls behind, the pipe fills, the
// writes block and the schedule runs late, which the held rule sees.
type mosquittoPeer struct {
	addr     string // host:port
	protocol string // "5" or "3.1.1"
	qos      int
	duration time.Duration
	dir      string // where each run's stderr goes
}

// peerRun is what one run of the peer measured.
type peerRun struct {
	sent, received int64
	lateMax        time.Duration
	intendedP50us  float64 // e2e from the intended (due) time to mosquitto_sub's %U
	receiverRate   float64
}

// peerWarmup is excluded from the figures, as the floor's and mqbench's 2 s.
const peerWarmup = 2 * time.Second

// peerLine is one message as a line: 'M' (measured) or 'W' (warm-up), the due time as 19
// digits of Unix nanoseconds, then filler up to size bytes (mosquitto_pub drops the newline).
func peerLine(buf []byte, measured bool, due time.Time, size int) []byte {
	kind := byte('W')
	if measured {
		kind = 'M'
	}
	buf = append(buf, kind)
	buf = append(buf, fmt.Sprintf("%019d", due.UnixNano())...)
	for range size - 20 {
		buf = append(buf, 'x')
	}
	return append(buf, '\n')
}

// parsePeerLine reads one line of mosquitto_sub -F '%U %20.20p': the arrival time
// ("1795980101.191861680"), the kind ('M', 'W' or 'R' for the readiness probe) and the due
// time, both Unix nanoseconds. ok is false for a line of any other shape.
func parsePeerLine(line string) (arrived int64, kind byte, due int64, ok bool) {
	f := strings.Fields(line)
	if len(f) < 2 || len(f[1]) < 20 {
		return 0, 0, 0, false
	}
	sec, frac, found := strings.Cut(f[0], ".")
	if !found || len(frac) != 9 {
		return 0, 0, 0, false
	}
	s, err1 := strconv.ParseInt(sec, 10, 64)
	n, err2 := strconv.ParseInt(frac, 10, 64)
	d, err3 := strconv.ParseInt(f[1][1:20], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, 0, 0, false
	}
	return s*1e9 + n, f[1][0], d, true
}

// mosquittoVersion is the -V value of protocol.
func mosquittoVersion(protocol string) string {
	if protocol == "3.1.1" {
		return "mqttv311"
	}
	return "mqttv5"
}

// run feeds mosquitto_pub rate messages a second (batch lines a tick) of size bytes for the
// warm-up and the window and counts what mosquitto_sub receives.
func (p mosquittoPeer) run(rate, batch, size int) (peerRun, error) {
	host, port, _ := strings.Cut(p.addr, ":")
	topic := fmt.Sprintf("mqbench/peer/%d-%d-%d", os.Getpid(), p.qos, rate)
	id := fmt.Sprintf("mqbench-peer-%d-%d", os.Getpid(), rate)
	common := []string{"-h", host, "-p", port, "-t", topic, "-q", strconv.Itoa(p.qos), "-V", mosquittoVersion(p.protocol)}
	stderr, err := os.Create(fmt.Sprintf("%s/mqtt-peer-qos%d-%d.stderr", p.dir, p.qos, rate))
	if err != nil {
		return peerRun{}, err
	}
	defer stderr.Close()
	sub := exec.Command("mosquitto_sub", append(common, "-i", id+"-sub", "-F", "%U %20.20p")...)
	sub.Stderr = stderr
	out, err := sub.StdoutPipe()
	if err != nil {
		return peerRun{}, err
	}
	if err := sub.Start(); err != nil {
		return peerRun{}, fmt.Errorf("mosquitto_sub: %v", err)
	}
	// mosquitto_sub's lines, read by one goroutine: readiness, then the measured messages.
	h := hdr.New(1, int64(time.Hour), 3)
	var ready, received, first, last atomic.Int64
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			arrived, kind, due, ok := parsePeerLine(sc.Text())
			switch {
			case !ok:
			case kind == 'R':
				ready.Store(1)
			case kind == 'M':
				_ = h.RecordValue(max(arrived-due, 0))
				if received.Add(1) == 1 {
					first.Store(arrived)
				}
				last.Store(arrived)
			}
		}
	}()
	// stopSub ends mosquitto_sub and, once its reader has seen the end of its output, waits
	// for it (exec's rule for StdoutPipe), so the figures are read with no reader running.
	var stopOnce sync.Once
	stopSub := func() {
		stopOnce.Do(func() { _ = sub.Process.Kill(); <-readDone; _ = sub.Wait() })
	}
	defer stopSub()
	pub := exec.Command("mosquitto_pub", append(common, "-i", id+"-pub", "-l")...)
	pub.Stderr = stderr
	r, in, err := os.Pipe()
	if err != nil {
		return peerRun{}, err
	}
	defer in.Close()
	// A pipe holds 64 KiB (64 messages: 6 ms at 10,000 msg/s), so a moment off the CPU for
	// mosquitto_pub on a busy machine blocked the writes; 1 MiB (the default most a user may
	// set) is a client library's send queue's worth, as mqttfloor's and mqbench's are.
	_, _ = unix.FcntlInt(in.Fd(), unix.F_SETPIPE_SZ, 1<<20)
	pub.Stdin = r
	err = pub.Start()
	r.Close() // the child's copy is its own
	if err != nil {
		return peerRun{}, fmt.Errorf("mosquitto_pub: %v", err)
	}
	pubDone := make(chan error, 1)
	go func() { pubDone <- pub.Wait() }()
	defer func() {
		select {
		case <-pubDone:
		default:
			_ = pub.Process.Kill()
			<-pubDone
		}
	}()

	// Readiness: mosquitto_sub says nothing when its subscription is in place, so probe
	// lines go through until one comes back (10 s at most).
	for deadline := time.Now().Add(10 * time.Second); ready.Load() == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			return peerRun{}, fmt.Errorf("mosquitto_sub received nothing from mosquitto_pub in 10s (see %s)", stderr.Name())
		}
		r := peerLine(nil, false, time.Now(), size)
		r[0] = 'R'
		if _, err := in.Write(r); err != nil {
			return peerRun{}, fmt.Errorf("mosquitto_pub: %v (see %s)", err, stderr.Name())
		}
	}

	var run peerRun
	period := time.Duration(float64(batch) * 1e9 / float64(rate))
	ticks := int64((peerWarmup + p.duration) / period)
	start := time.Now()
	remove := pacer.Default.Add(start, period, start.Add(time.Duration(ticks)*period))
	buf := make([]byte, 0, batch*(size+1))
	for i := int64(0); i < ticks; i++ {
		due := time.Duration(i) * period
		if wait := due - time.Since(start); wait > 0 {
			time.Sleep(wait)
		}
		measured := due >= peerWarmup
		if late := time.Since(start) - due; measured {
			run.lateMax = max(run.lateMax, late)
		}
		buf = buf[:0]
		for range batch {
			buf = peerLine(buf, measured, start.Add(due), size)
		}
		if _, err := in.Write(buf); err != nil {
			remove()
			return peerRun{}, fmt.Errorf("mosquitto_pub: %v (see %s)", err, stderr.Name())
		}
		if measured {
			run.sent += int64(batch)
		}
	}
	remove()
	for deadline := time.Now().Add(5 * time.Second); received.Load() < run.sent && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	_ = in.Close() // mosquitto_pub ends at the end of its input
	stopSub()
	run.received = received.Load()
	run.intendedP50us = float64(hist.ValueAt(h, 50)) / 1e3
	if span := last.Load() - first.Load(); span > 0 {
		run.receiverRate = float64(run.received) / time.Duration(span).Seconds()
	}
	return run, nil
}

// mosquittoPeerProbe is the peer on a ladder: held by the floor's rule, everything sent
// received and the schedule never LateMax behind, and one more: received at 98 % of the rate
// or more (first to last arrival). mosquitto_pub reads its input as fast as it comes and
// queues what it has not sent yet without bound, so the pipe never fills and the schedule's
// lateness does not see it fall behind; the arrivals do (a queue growing for the whole
// window drains in the 5 s after it, and the rule without this line called that held).
type mosquittoPeerProbe struct{ peer mosquittoPeer }

func (p mosquittoPeerProbe) Rules() int { return 1 }

func (p mosquittoPeerProbe) Measure(rate, batch int, _ []bool) ([]bool, string, error) {
	r, err := p.peer.run(rate, batch, 1024)
	if err != nil {
		return nil, "", err
	}
	held := r.received == r.sent && r.sent > 0 && r.lateMax < LateMax && r.receiverRate >= 0.98*float64(rate)
	return []bool{held}, fmt.Sprintf("%.0f %.0f %.1fms", float64(r.sent)/p.peer.duration.Seconds(), r.receiverRate, float64(r.lateMax)/1e6), nil
}

var _ ladder.Probe = mosquittoPeerProbe{}

// mosquittoVersionOf is the version in a Mosquitto program's help text ("mosquitto_pub
// version 2.0.11 running on ...", "mosquitto version 2.0.11"), else "".
func mosquittoVersionOf(help []byte) string {
	for _, l := range bytes.Split(help, []byte("\n")) {
		f := strings.Fields(string(l))
		if len(f) >= 3 && strings.HasPrefix(f[0], "mosquitto") && f[1] == "version" {
			return f[2]
		}
	}
	return ""
}

// mosquittoVersions are the versions of the broker and of its clients installed here.
func mosquittoVersions() (broker, clients string) {
	b, _ := exec.Command("mosquitto", "-h").CombinedOutput()
	c, _ := exec.Command("mosquitto_pub", "--help").CombinedOutput()
	return mosquittoVersionOf(b), mosquittoVersionOf(c)
}
