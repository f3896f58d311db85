package driver

import (
	"context"
	"errors"
	"testing"
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
