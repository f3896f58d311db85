package drivertest

import (
	"cmp"
	"context"
	"math"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Restart is one broker restart test (RunRestart): the driver, how its broker goes away and
// comes back, and what the driver must show meanwhile. A check's zero value skips it, since
// what a driver can promise in an outage differs from broker to broker.
type Restart struct {
	Driver string        // registered driver name
	Config driver.Config // the broker's own URL, the destination, the options
	// Outage takes the broker away and back; nil: a Proxy in front of Config.URL.
	Outage  Outage
	Away    Away    // while the broker is away
	Back    Back    // once it is back
	Closing Closing // at the end
	// Finally, when set, runs the driver's own checks after Closing's.
	Finally func(t *testing.T, s *Session)
}

// Away is what the driver must do while the broker is away.
type Away struct {
	// OnDown runs as soon as the broker went away, before any Send: what a real restart
	// does to the broker's state (a transient queue lost).
	OnDown func(t *testing.T, s *Session)
	// Sends messages go into the outage back to back; or, with For, as many as fit, 2 ms apart.
	Sends int
	For   time.Duration
	// AckEvery: the Ack of every AckEvery-th of them (1: each; 0: none) is waited for, right
	// after its Send or, with AcksAfter, once all are sent. AckTimeout (5 s when 0) bounds each
	// Wait; a timeout counts as a failed Ack.
	AckEvery   int
	AcksAfter  bool
	AckTimeout time.Duration
	// SendWithin bounds one Send, AckWithin one waited Ack, SettleWithin a Send together with
	// the Ack waited right after it.
	SendWithin, AckWithin, SettleWithin time.Duration
	// SomeFail: at least one Send or waited Ack fails. AcksFail: every waited Ack fails.
	SomeFail, AcksFail bool
	// CloseConsumer: a second consumer, started with the first, is closed while the broker is
	// away, within this.
	CloseConsumer time.Duration
}

// Resume is what must happen once the broker is back.
type Resume int

const (
	// Receives: the consumer receives again. A message goes out every 50 ms (its Ack waited
	// up to 5 s, whatever it says) until one of them arrives; then a Send must succeed.
	Receives Resume = iota
	// Nothing: the broker came back without the destination (a server that keeps no data),
	// so only Closing is checked.
	Nothing
	// ExactlyOnce: a Send is acknowledged again, the publisher and the consumer reconnect by
	// themselves exactly once each, and the 500 messages sent once the consumer did are all
	// acknowledged and received exactly once.
	ExactlyOnce
)

// Back is what the driver must do once the broker is back.
type Back struct {
	Resume Resume
	// Within bounds the wait for the consumer (and, ExactlyOnce, for an acknowledged Send and
	// for the 500 messages); 20 s when 0.
	Within time.Duration
	// FirstReceived (ExactlyOnce): the first message acknowledged after the restart arrives.
	FirstReceived bool
}

// Closing is what the driver must do at the end.
type Closing struct {
	Down      bool          // the broker goes away again first: Close must not hang on a dead broker
	Within    time.Duration // bounds the consumer's and the publisher's Close together
	SendFails bool          // a Send after Close fails
}

// RunRestart opens a Session, takes the broker away (Away), brings it back (Back) and closes
// (Closing), failing the test where the driver blocks, hides a failure or does not recover.
func RunRestart(t *testing.T, r Restart) {
	t.Helper()
	s := OpenSession(t, r)
	s.Outage.Down()
	r.Away.check(t, s)
	s.Outage.Up(t)
	switch r.Back.Resume {
	case Receives:
		r.Back.receives(t, s)
	case ExactlyOnce:
		r.Back.exactlyOnce(t, s)
	}
	r.Closing.check(t, s)
	if r.Finally != nil {
		r.Finally(t, s)
	}
	if e, ok := s.C.(interface{ Errors() int64 }); ok {
		t.Logf("consumer errors: %d", e.Errors())
	}
}

func (a Away) check(t *testing.T, s *Session) {
	t.Helper()
	ctx := s.Ctx
	if a.OnDown != nil {
		a.OnDown(t, s)
	}
	down := time.Now()
	var sent, sendErrs, waited, ackErrs int
	var longest time.Duration
	var firstErr error
	var later []driver.Ack
	for i := 0; a.For > 0 && time.Since(down) < a.For || a.For == 0 && i < a.Sends; i++ {
		start := time.Now()
		ack, err := s.Send(ctx)
		took := time.Since(start)
		sent++
		longest = max(longest, took)
		if a.SendWithin > 0 && took > a.SendWithin {
			t.Fatalf("a Send blocked %v while the broker was away, want at most %v", took, a.SendWithin)
		}
		if err != nil {
			sendErrs++
			firstErr = cmp.Or(firstErr, err)
		} else if ack != nil && a.AckEvery > 0 && i%a.AckEvery == 0 {
			if a.AcksAfter {
				later = append(later, ack)
			} else {
				waited++
				if err := a.wait(t, ctx, ack); err != nil {
					ackErrs++
					firstErr = cmp.Or(firstErr, err)
				}
				if el := time.Since(start); a.SettleWithin > 0 && el > a.SettleWithin {
					t.Fatalf("a Send and its Ack took %v while the broker was away, want at most %v", el, a.SettleWithin)
				}
			}
		}
		if a.For > 0 {
			time.Sleep(2 * time.Millisecond)
		}
	}
	for _, ack := range later {
		waited++
		if err := a.wait(t, ctx, ack); err != nil {
			ackErrs++
			firstErr = cmp.Or(firstErr, err)
		}
	}
	t.Logf("broker away: %d of %d Sends failed (longest %v), %d of %d waited Acks failed, all within %v; first error: %v",
		sendErrs, sent, longest, ackErrs, waited, time.Since(down).Round(time.Millisecond), firstErr)
	if a.SomeFail && sendErrs+ackErrs == 0 {
		t.Fatalf("no Send or Ack failed while the broker was away")
	}
	if a.AcksFail && ackErrs != waited {
		t.Errorf("%d of %d Acks failed while the broker was away, want all", ackErrs, waited)
	}
	if a.CloseConsumer > 0 {
		start := time.Now()
		_ = s.Extra.Close()
		if el := time.Since(start); el > a.CloseConsumer {
			t.Errorf("consumer Close took %v while the broker was away, want at most %v", el, a.CloseConsumer)
		}
	}
}

// wait waits for one Ack sent into the outage, within AckTimeout and AckWithin.
func (a Away) wait(t *testing.T, ctx context.Context, ack driver.Ack) error {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, cmp.Or(a.AckTimeout, 5*time.Second))
	defer cancel()
	start := time.Now()
	err := ack.Wait(wctx)
	if el := time.Since(start); a.AckWithin > 0 && el > a.AckWithin {
		t.Fatalf("Ack.Wait blocked %v while the broker was away, want at most %v", el, a.AckWithin)
	}
	return err
}

// sendWait sends the session's next message and waits up to 5 s for its Ack.
func sendWait(s *Session) error {
	a, err := s.Send(s.Ctx)
	if err != nil || a == nil {
		return err
	}
	ctx, cancel := context.WithTimeout(s.Ctx, 5*time.Second)
	defer cancel()
	return a.Wait(ctx)
}

func (b Back) receives(t *testing.T, s *Session) {
	t.Helper()
	within := cmp.Or(b.Within, 20*time.Second)
	back, from := time.Now(), s.Next()
	for n, _ := s.Received(from, math.MaxUint64); n == 0; n, _ = s.Received(from, math.MaxUint64) {
		if time.Since(back) > within {
			all, _ := s.Received(0, math.MaxUint64)
			t.Fatalf("the consumer did not resume within %v of the broker coming back (received %d messages in all)", within, all)
		}
		_ = sendWait(s)
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("back: the consumer resumed within %v", time.Since(back).Round(time.Millisecond))
	if _, err := s.Send(s.Ctx); err != nil {
		t.Errorf("Send after the broker came back: %v", err)
	}
}

func (b Back) exactlyOnce(t *testing.T, s *Session) {
	t.Helper()
	within := cmp.Or(b.Within, 20*time.Second)
	pr, okP := s.P.(reconnector)
	cr, okC := s.C.(reconnector)
	if !okP || !okC {
		t.Fatalf("ExactlyOnce needs a publisher and a consumer that count their reconnects (%T, %T)", s.P, s.C)
	}
	back := time.Now()
	var firstOK uint64
	for {
		if time.Since(back) > within {
			t.Fatalf("no Send succeeded within %v of the broker coming back", within)
		}
		n := s.Next()
		if sendWait(s) == nil {
			firstOK = n
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	resumed := time.Since(back)
	// What is sent before the consumer subscribed again may be unroutable (a lost queue
	// declared again only by the consumer): the batch below waits for it.
	for cr.Reconnects() == 0 {
		if time.Since(back) > within {
			t.Fatalf("the consumer did not subscribe again within %v of the broker coming back", within)
		}
		time.Sleep(10 * time.Millisecond)
	}
	const after = 500
	from := s.Next()
	acks := make([]driver.Ack, 0, after)
	for i := 0; i < after; i++ {
		a, err := s.Send(s.Ctx)
		if err != nil {
			t.Fatalf("Send %d after the broker came back: %v", i, err)
		}
		acks = append(acks, a)
	}
	for i, a := range acks {
		if a == nil {
			continue
		}
		if err := a.Wait(s.Ctx); err != nil {
			t.Fatalf("Ack %d after the broker came back: %v", i, err)
		}
	}
	s.WaitReceived(t, from, s.Next(), within)
	time.Sleep(100 * time.Millisecond) // for duplicates to show up
	if _, dups := s.Received(from, s.Next()); dups > 0 {
		t.Errorf("%d of the messages sent after the restart were received twice", dups)
	}
	if first, _ := s.Received(firstOK, firstOK+1); b.FirstReceived && first != 1 {
		t.Errorf("the first message acknowledged after the restart was not received")
	}
	t.Logf("back: first Send acknowledged after %v; %d later messages all received; reconnects: publisher %d, consumer %d",
		resumed.Round(time.Millisecond), after, pr.Reconnects(), cr.Reconnects())
	if pr.Reconnects() != 1 || cr.Reconnects() != 1 {
		t.Errorf("reconnects: publisher %d, consumer %d; want 1 each", pr.Reconnects(), cr.Reconnects())
	}
}

func (c Closing) check(t *testing.T, s *Session) {
	t.Helper()
	if c.Down {
		s.Outage.Down()
	}
	start := time.Now()
	_ = s.C.Close()
	mid := time.Now()
	_ = s.P.Close()
	if el := time.Since(start); c.Within > 0 && el > c.Within {
		t.Errorf("Close took %v (consumer %v), want at most %v", el, mid.Sub(start), c.Within)
	}
	if c.SendFails {
		if _, err := s.P.Send(s.Ctx, driver.Message{Value: make([]byte, 64)}); err == nil {
			t.Errorf("Send after Close succeeded")
		}
	}
}
