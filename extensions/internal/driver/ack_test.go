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
