package zmqdrv

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// freeBase returns a port p on 127.0.0.1 such that p..p+n-1 are free now.
func freeBase(t testing.TB, n int) int {
	t.Helper()
	for try := 0; try < 50; try++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if p+n > 65535 {
			continue
		}
		ok := true
		for i := 0; i < n && ok; i++ {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+i))
			if err != nil {
				ok = false
				continue
			}
			l.Close()
		}
		if ok {
			return p
		}
	}
	t.Fatalf("no %d consecutive free ports on 127.0.0.1", n)
	return 0
}

func url(t testing.TB, n int) string { return fmt.Sprintf("tcp://127.0.0.1:%d", freeBase(t, n)) }

func unique(name string) string {
	return fmt.Sprintf("mqbench.test.%s.%d", name, time.Now().UnixNano())
}

func opts(pattern string) *Options {
	o := &Options{Pattern: pattern}
	o.Defaults()
	return o
}

// TestConformance runs the shared suite. The suite opens and starts its consumers before its
// publishers, which is the order a brokerless transport needs (consumers bind, producers
// connect to them).
func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   *Options
		shared bool
	}{
		{name: "push-pull", opts: opts(patternPushPull)},
		{name: "push-pull-shared", opts: opts(patternPushPull), shared: true},
		{name: "pub-sub", opts: opts(patternPubSub)},
		{name: "pub-sub-hwm-unlimited", opts: &Options{Pattern: patternPubSub, HWM: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := driver.Config{URL: url(t, 2), Destination: unique(tc.name), Options: tc.opts}
			if tc.shared {
				drivertest.RunShared(t, "zeromq", cfg)
			} else {
				drivertest.Run(t, "zeromq", cfg)
			}
		})
	}
	t.Run("pub-sub-shared", func(t *testing.T) {
		t.Skip("not applicable: RunShared asserts that consumers share the messages; in pub-sub every subscriber receives every message (TestPubSubFanOut checks that instead)")
	})
}

// TestUnreachable: the shared Unreachable case does not apply.
func TestUnreachable(t *testing.T) {
	t.Skip("not applicable: there is no broker to be unreachable, Open connects to nothing; TestProducerCannotConnect and TestPortInUse cover the errors a brokerless run has")
}

// TestPubSubFanOut: every subscriber receives every message, and only its topic's.
func TestPubSubFanOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := url(t, 3)
	dest := unique("fanout")
	d, err := Open(ctx, driver.Config{URL: u, Destination: dest, Options: opts(patternPubSub)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var got [2]atomic.Int64
	var wrong atomic.Int64
	for i := range got {
		c, err := d.NewConsumer(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Start(ctx, func(v []byte, _ time.Time) {
			if string(v) != "x" {
				wrong.Add(1)
			}
			got[i].Add(1)
		}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := 0; i < 100; i++ {
		a, err := p.Send(ctx, driver.Message{Value: []byte("x")})
		if err != nil || a != nil {
			t.Fatalf("Send: ack %v, err %v; want a nil Ack and no error", a, err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for (got[0].Load() < 100 || got[1].Load() < 100) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got[0].Load() != 100 || got[1].Load() != 100 || wrong.Load() != 0 {
		t.Fatalf("subscribers got %d and %d messages (%d wrong), want 100 each", got[0].Load(), got[1].Load(), wrong.Load())
	}
}

// TestPortInUse: a consumer whose port is taken fails with an error naming the endpoint.
func TestPortInUse(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	u := "tcp://" + l.Addr().String()
	d, err := Open(context.Background(), driver.Config{URL: u, Destination: "x", Options: opts(patternPushPull)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.NewConsumer(context.Background(), 0)
	if err == nil || !strings.Contains(err.Error(), "port is in use") || !strings.Contains(err.Error(), l.Addr().String()) {
		t.Fatalf("NewConsumer on a taken port: %v, want an error saying the port %s is in use", err, l.Addr())
	}
	t.Log(err)
}

// TestProducerCannotConnect: no consumer, or a consumer endpoint nobody listens on, is an
// error naming what is missing, within a few seconds.
func TestProducerCannotConnect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := url(t, 1)
	d, err := Open(ctx, driver.Config{URL: u, Destination: "x", Options: opts(patternPushPull)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.NewPublisher(ctx, 0); err == nil || !strings.Contains(err.Error(), "no consumer") {
		t.Fatalf("NewPublisher without consumers: %v, want an error saying there is no consumer", err)
	}
	zd := d.(*zmqDriver)
	ep, _ := zd.endpoint(0)
	zd.register(0, ep) // known, but not listening
	start := time.Now()
	_, err = d.NewPublisher(ctx, 0)
	if err == nil || !strings.Contains(err.Error(), "cannot connect") || !strings.Contains(err.Error(), ep) {
		t.Fatalf("NewPublisher to a closed port: %v, want an error naming %s", err, ep)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v to fail, want < 5s", el)
	}
	t.Log(err)
}

// TestSendTimeout: a consumer that does not read blocks a PUSH; Send fails after
// send_timeout instead of hanging, and Close returns promptly.
func TestSendTimeout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := &Options{Pattern: patternPushPull, SendTimeout: 300 * time.Millisecond}
	o.Defaults()
	d, err := Open(ctx, driver.Config{URL: url(t, 1), Destination: "x", Options: o})
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.NewConsumer(ctx, 0) // bound, never started: nobody reads
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	zd := d.(*zmqDriver)
	zd.register(0, c.(*consumer).ep)
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 1<<20)
	start := time.Now()
	for i := 0; ; i++ {
		if _, err = p.Send(ctx, driver.Message{Value: big}); err != nil {
			break
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("%d sends of 1MB to a consumer that never reads did not fail", i)
		}
	}
	if !strings.Contains(err.Error(), "blocked for more than") {
		t.Errorf("error %q, want one saying the send blocked", err)
	}
	t.Logf("after %v: %v", time.Since(start), err)
	if _, err2 := p.Send(ctx, driver.Message{Value: []byte("x")}); err2 == nil {
		t.Error("Send after the timeout succeeded, want the producer's error")
	}
	cs := time.Now()
	if err := p.Close(); err != nil {
		t.Error(err)
	}
	if el := time.Since(cs); el > time.Second {
		t.Errorf("Close took %v", el)
	}
}

// TestSendContext: a send blocked on a full consumer returns when its context ends.
func TestSendContext(t *testing.T) {
	t.Parallel()
	o := &Options{Pattern: patternPushPull, SendTimeout: time.Minute}
	o.Defaults()
	d, err := Open(context.Background(), driver.Config{URL: url(t, 1), Destination: "x", Options: o})
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.NewConsumer(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	zd := d.(*zmqDriver)
	zd.register(0, c.(*consumer).ep)
	p, err := d.NewPublisher(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	big := make([]byte, 1<<20)
	start := time.Now()
	for {
		if _, err = p.Send(ctx, driver.Message{Value: big}); err != nil {
			break
		}
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("Send returned %v after the context ended", el)
	}
	t.Log(err)
}

// TestLoopbackOnly: while producers and consumers run, every socket listening on one of the
// run's ports is bound to 127.0.0.1 (as scripts/brokers/listeners.sh checks brokers), and the
// producers listen on nothing.
func TestLoopbackOnly(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp on this system")
	}
	for _, pattern := range []string{patternPushPull, patternPubSub} {
		t.Run(pattern, func(t *testing.T) {
			ctx := context.Background()
			base := freeBase(t, 3)
			d, err := Open(ctx, driver.Config{URL: fmt.Sprintf("tcp://127.0.0.1:%d", base), Destination: "x", Options: opts(pattern)})
			if err != nil {
				t.Fatal(err)
			}
			before := listeningPorts(t)
			for i := 0; i < 3; i++ {
				c, err := d.NewConsumer(ctx, i)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if err := c.Start(ctx, func([]byte, time.Time) {}); err != nil {
					t.Fatal(err)
				}
			}
			for i := 0; i < 2; i++ {
				p, err := d.NewPublisher(ctx, i)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				if _, err := p.Send(ctx, driver.Message{Value: []byte("x")}); err != nil {
					t.Fatal(err)
				}
			}
			after := listeningPorts(t)
			seen := 0
			for port, addrs := range after {
				mine := port >= base && port < base+3
				if !mine && len(before[port]) == len(addrs) {
					continue // someone else's listener
				}
				if !mine {
					t.Errorf("a new listener on port %d (%v), not one of the consumers' %d..%d", port, addrs, base, base+2)
					continue
				}
				for _, a := range addrs {
					seen++
					if a != "127.0.0.1" {
						t.Errorf("port %d listens on %s, want 127.0.0.1 only", port, a)
					}
				}
			}
			if seen != 3 {
				t.Errorf("%d listening sockets on ports %d..%d, want 3 (one per consumer)", seen, base, base+2)
			}
		})
	}
}

// listeningPorts reads /proc/net/tcp and tcp6: port → local addresses of this process's
// sockets in LISTEN state.
func listeningPorts(t *testing.T) map[int][]string {
	t.Helper()
	// This process's sockets only: other packages' tests (go test runs packages side by
	// side) and other programs open listeners of their own meanwhile.
	mine := map[string]bool{}
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if l, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.HasPrefix(l, "socket:[") {
			mine[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	out := map[int][]string{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) < 10 || fs[3] != "0A" || !mine[fs[9]] { // 0A: LISTEN; 9: the inode
				continue
			}
			hexAddr, hexPort, ok := strings.Cut(fs[1], ":")
			if !ok {
				continue
			}
			port, err := strconv.ParseUint(hexPort, 16, 16)
			if err != nil {
				continue
			}
			out[int(port)] = append(out[int(port)], decodeAddr(hexAddr))
		}
		fh.Close()
	}
	return out
}

// decodeAddr turns /proc/net/tcp's little-endian hex address into text.
func decodeAddr(h string) string {
	b := make([]byte, len(h)/2)
	for i := range b {
		v, _ := strconv.ParseUint(h[2*i:2*i+2], 16, 8)
		b[i] = byte(v)
	}
	// Each 32-bit word is in host (little-endian) order.
	for i := 0; i+4 <= len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	return net.IP(b).String()
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want []string
	}{
		{Options{}, nil},
		{Options{Pattern: "pub-sub"}, nil},
		{Options{Pattern: "req-rep"}, []string{"pattern"}},
		{Options{Pattern: "push-pull", HWM: 5}, []string{"hwm"}},
		{Options{Pattern: "pub-sub", HWM: -1}, nil},
		{Options{Pattern: "pub-sub", SendTimeout: time.Second, HWM: -2}, []string{"hwm", "send_timeout"}},
		{Options{Pattern: "push-pull", SendTimeout: 2 * time.Minute}, []string{"send_timeout"}},
	} {
		o := tc.o
		o.Defaults()
		errs := o.Validate()
		var got []string
		for _, e := range errs {
			got = append(got, e.Field)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%+v: errors on %v, want %v (%v)", tc.o, got, tc.want, errs)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for u, ok := range map[string]bool{
		"tcp://127.0.0.1:5560": true,
		"tcp://[::1]:5560":     true,
		"tcp://127.0.0.1":      false,
		"udp://127.0.0.1:1":    false,
		"127.0.0.1:5560":       false,
		"tcp://h:0":            false,
		"tcp://h:70000":        false,
		"tcp://h:1/x":          false,
	} {
		if err := checkURL(u); (err == nil) != ok {
			t.Errorf("checkURL(%q) = %v, want ok=%v", u, err, ok)
		}
	}
}

func BenchmarkPushPull1KB(b *testing.B) {
	drivertest.Benchmark(b, "zeromq", driver.Config{URL: url(b, 1), Destination: unique("bench"), Options: opts(patternPushPull)}, 1024)
}

func BenchmarkPubSub1KB(b *testing.B) {
	drivertest.Benchmark(b, "zeromq", driver.Config{URL: url(b, 1), Destination: unique("bench"), Options: &Options{Pattern: patternPubSub, HWM: -1}}, 1024)
}
