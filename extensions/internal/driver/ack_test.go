package driver

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// A ChanAck's outcome survives a Wait that gave up, and every later Wait returns it.
func TestChanAck(t *testing.T) {
	a := NewChanAck(func(err error) error { return err })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := a.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait before the outcome with a cancelled context: %v", err)
	}
	boom := errors.New("boom")
	a.C <- boom
	for i := 0; i < 2; i++ {
		if err := a.Wait(context.Background()); err != boom {
			t.Fatalf("Wait %d: %v, want %v", i, err, boom)
		}
	}
}

// A Pending wakes a Wait that is already waiting, and every later Wait gets the outcome.
func TestPending(t *testing.T) {
	p := NewPending()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait before Resolve with a cancelled context: %v", err)
	}
	boom := errors.New("boom")
	waited := make(chan error)
	go func() { waited <- p.Wait(context.Background()) }()
	p.Resolve(boom)
	if err := <-waited; err != boom {
		t.Fatalf("Wait woken by Resolve: %v, want %v", err, boom)
	}
	if err := p.Wait(context.Background()); err != boom {
		t.Fatalf("Wait after Resolve: %v, want %v", err, boom)
	}
}

// A Resolve racing with Waits that make the wake channel wakes every one of them (no Wait
// misses the Resolve that came between its check and its sleep).
func TestPendingResolveRacesWait(t *testing.T) {
	boom := errors.New("boom")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var spin atomic.Int64
	for i := range 200000 {
		p := new(Pending)
		waited := make(chan error, 2)
		for range 2 {
			go func() { waited <- p.Wait(ctx) }()
		}
		for j := range i % 64 { // resolve at varying points of the Waits' start
			spin.Add(int64(j))
		}
		p.Resolve(boom)
		for range 2 {
			if err := <-waited; err != boom {
				t.Fatalf("round %d: Wait racing Resolve: %v, want %v", i, err, boom)
			}
		}
	}
}

// Poll says whether each kind of Ack is resolved, without blocking, and agrees with Wait.
func TestPoll(t *testing.T) {
	boom := errors.New("boom")
	c := NewChanAck(func(err error) error { return err })
	p := NewPending()
	cases := []struct {
		name    string
		ack     Poller
		resolve func()
	}{
		{"done", Done(boom).(Poller), func() {}},
		{"chan", c, func() { c.C <- boom }},
		{"pending", &p, func() { p.Resolve(boom) }},
	}
	for _, tc := range cases {
		if tc.name != "done" {
			if done, err := tc.ack.Poll(); done || err != nil {
				t.Errorf("%s: Poll before the outcome: %v %v, want false", tc.name, done, err)
			}
		}
		tc.resolve()
		for i := 0; i < 2; i++ {
			if done, err := tc.ack.Poll(); !done || err != boom {
				t.Errorf("%s: Poll %d after the outcome: %v %v, want true %v", tc.name, i, done, err, boom)
			}
		}
		if err := tc.ack.(Ack).Wait(context.Background()); err != boom {
			t.Errorf("%s: Wait after Poll: %v, want %v", tc.name, err, boom)
		}
	}
}
