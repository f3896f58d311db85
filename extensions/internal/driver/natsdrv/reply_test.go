package natsdrv

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

func TestRequestReply(t *testing.T) {
	for _, responders := range []int{1, 2} {
		t.Run(map[int]string{1: "one-responder", 2: "two-responders"}[responders], func(t *testing.T) {
			t.Parallel()
			o := &Options{Mode: "core"}
			o.Defaults()
			cfg := driver.Config{URL: "embedded", Destination: "mqbench.test.reply", Options: o, RunID: t.Name()}
			drivertest.RunRequestReply(t, "nats", cfg, responders)
		})
	}
}

// TestRequestReplyJetStream checks that JetStream mode refuses request-reply, in the Spec (for
// the scenario parser) and in the driver.
func TestRequestReplyJetStream(t *testing.T) {
	t.Parallel()
	spec, err := driver.Lookup("nats")
	if err != nil {
		t.Fatal(err)
	}
	o := &Options{Mode: "jetstream"}
	o.Defaults()
	if spec.RequestReply(o) {
		t.Error("Spec.RequestReply allows JetStream mode")
	}
	d, err := Open(context.Background(), driver.Config{URL: "embedded", Destination: "mqbench.test.reply.js", Options: o, RunID: "reply-js"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rr := d.(driver.RequestReply)
	if _, err := rr.NewResponder(context.Background(), 0); !errors.Is(err, errRequestReplyMode) {
		t.Errorf("NewResponder in JetStream mode: %v, want %v", err, errRequestReplyMode)
	}
	if _, err := rr.NewRequester(context.Background(), 0, func([]byte, time.Time) {}); !errors.Is(err, errRequestReplyMode) {
		t.Errorf("NewRequester in JetStream mode: %v, want %v", err, errRequestReplyMode)
	}
}

// TestRequestNoResponders checks that the server's "no responders" status, which answers a
// request nobody is subscribed for, is counted and not handed over as a reply.
func TestRequestNoResponders(t *testing.T) {
	t.Parallel()
	o := &Options{Mode: "core"}
	o.Defaults()
	ctx := context.Background()
	d, err := Open(ctx, driver.Config{URL: "embedded", Destination: "mqbench.test.reply.nobody", Options: o, RunID: "nobody"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	delivered := make(chan []byte, 1)
	p, err := d.(driver.RequestReply).NewRequester(ctx, 0, func(v []byte, _ time.Time) { delivered <- append([]byte(nil), v...) })
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Send(ctx, driver.Message{Value: []byte("request")}); err != nil {
		t.Fatal(err)
	}
	r := p.(*requester)
	deadline := time.Now().Add(5 * time.Second)
	for r.NoResponders() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if r.NoResponders() != 1 {
		t.Errorf("NoResponders() = %d, want 1", r.NoResponders())
	}
	select {
	case v := <-delivered:
		t.Errorf("delivered %q, want nothing", v)
	case <-time.After(100 * time.Millisecond):
	}
}
