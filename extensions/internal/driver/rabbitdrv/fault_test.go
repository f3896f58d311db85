package rabbitdrv

import (
	"context"
	"errors"
	"io"
	"net"
	neturl "net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// proxy is a TCP proxy in front of the broker that a test can kill (close every connection,
// like a crashed broker) or freeze (stop forwarding without closing, like a hung broker or a
// network partition). AMQP has no redirects, so clients only ever talk to the proxy.
type proxy struct {
	ln     net.Listener
	target string
	frozen atomic.Bool
	dead   chan struct{}
	once   sync.Once
	mu     sync.Mutex
	conns  []net.Conn
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target, dead: make(chan struct{})}
	go p.accept()
	t.Cleanup(p.kill)
	return p
}

func (p *proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		b, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, b)
		p.mu.Unlock()
		go p.pipe(c, b)
		go p.pipe(b, c)
	}
}

func (p *proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		for p.frozen.Load() {
			select {
			case <-p.dead:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				dst.Close()
			}
			return
		}
	}
}

// kill closes the listener and every connection.
func (p *proxy) kill() {
	p.once.Do(func() {
		close(p.dead)
		p.ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
	})
}

func (p *proxy) url(t *testing.T, broker string) string {
	u, err := neturl.Parse(broker)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = p.ln.Addr().String()
	return u.String()
}

// faultSession opens a driver through a proxy, sets up a quorum queue, starts a consumer and a
// publisher (confirms) and checks that 100 messages go through.
func faultSession(t *testing.T) (*proxy, driver.Driver, *consumer, driver.Publisher, *atomic.Int64) {
	t.Helper()
	broker := rabbitURL(t)
	u, err := neturl.Parse(broker)
	if err != nil {
		t.Fatal(err)
	}
	px := startProxy(t, u.Host)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o := &Options{QueueType: "quorum"}
	queue := unique("fault")
	d, err := Open(ctx, driver.Config{URL: px.url(t, broker), Destination: queue, Options: o, RunID: "fault"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The driver's own connection went through the proxy too: clean up directly.
		d.Close()
		if d2, err := Open(context.Background(), driver.Config{URL: broker, Destination: queue, Options: o}); err == nil {
			rd := d2.(*rabbitDriver)
			rd.queueCreated = true
			_ = rd.Teardown(context.Background())
			d2.Close()
		}
	})
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	var got atomic.Int64
	c, err := d.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx, func([]byte, time.Time) { got.Add(1) }); err != nil {
		t.Fatal(err)
	}
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		a, err := p.Send(ctx, driver.Message{Value: make([]byte, 64)})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 10*time.Second, func() bool { return got.Load() >= 100 })
	return px, d, c.(*consumer), p, &got
}

// TestBrokerCrash: every connection drops at once. Send fails promptly instead of blocking,
// outstanding Acks fail, and Close returns at once.
func TestBrokerCrash(t *testing.T) {
	t.Parallel()
	px, _, c, p, _ := faultSession(t)
	ctx := context.Background()
	px.kill()

	var acks []driver.Ack
	sendErrs := 0
	for i := 0; i < 50; i++ {
		start := time.Now()
		a, err := p.Send(ctx, driver.Message{Value: make([]byte, 64)})
		if el := time.Since(start); el > time.Second {
			t.Errorf("Send blocked %v after the broker died", el)
		}
		if err != nil {
			sendErrs++
			if sendErrs == 1 {
				t.Logf("Send after the broker died: %v", err)
			}
			continue
		}
		acks = append(acks, a)
		time.Sleep(2 * time.Millisecond)
	}
	if sendErrs == 0 {
		t.Errorf("no Send failed after the broker died")
	}
	for i, a := range acks {
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := a.Wait(wctx)
		cancel()
		if err == nil {
			t.Errorf("Ack %d succeeded after the broker died", i)
		} else if i == 0 {
			t.Logf("Ack after the broker died: %v", err)
		}
	}
	start := time.Now()
	c.Close()
	p.Close()
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("Close took %v after the broker died", el)
	}
	if c.Errors() == 0 {
		t.Errorf("the consumer did not notice that its channel closed")
	}
	t.Logf("sends failed: %d of 50; consumer errors: %d", sendErrs, c.Errors())
}

// TestBrokerHang: the broker stops answering without closing anything. Send must not block
// for longer than the write timeout; the heartbeat or the write timeout then kills the
// connection, after which Sends and Acks fail; Close stays bounded.
func TestBrokerHang(t *testing.T) {
	t.Parallel()
	px, _, c, p, _ := faultSession(t)
	ctx := context.Background()
	px.frozen.Store(true)

	start := time.Now()
	var longest time.Duration
	var firstErr error
	var acks []driver.Ack
	for time.Since(start) < 30*time.Second {
		s := time.Now()
		a, err := p.Send(ctx, driver.Message{Value: make([]byte, 1024)})
		longest = max(longest, time.Since(s))
		if err != nil {
			firstErr = err
			break
		}
		acks = append(acks, a)
	}
	if firstErr == nil {
		t.Fatalf("Send kept succeeding for 30s against a hung broker")
	}
	t.Logf("first failed Send %v after the hang (%d sent before): %v; longest Send %v", time.Since(start).Round(time.Millisecond), len(acks), firstErr, longest)
	if longest > writeTimeout+2*time.Second {
		t.Errorf("a Send blocked %v, want at most about the write timeout %v", longest, writeTimeout)
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for i, a := range acks {
		if err := a.Wait(wctx); err == nil {
			t.Fatalf("Ack %d succeeded although the broker never answered", i)
		}
	}
	s := time.Now()
	c.Close()
	p.Close()
	if el := time.Since(s); el > 8*time.Second {
		t.Errorf("Close took %v against a hung broker", el)
	}
}
