package faultproxy

import (
	"slices"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver/natsdrv"
	"github.com/nats-io/nats.go"
)

// latencies publishes n messages through a proxy with the given delay and mode to a real
// in-process NATS server, one every gap, and returns each one's publish → receipt time
// (the subscriber connects directly), sorted.
func latencies(t *testing.T, srv *natsdrv.Embedded, delay time.Duration, mode Mode, n int, gap time.Duration, stall func(*Proxy)) (lat, holds []time.Duration) {
	t.Helper()
	p, err := Listen("127.0.0.1:0", srv.URL[len("nats://"):], delay, mode)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	sub, got := subscribe(t, srv.URL, n)
	defer sub.Close()
	pub, err := nats.Connect("nats://" + p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	if stall != nil {
		stall(p)
	}
	for range n {
		b, _ := time.Now().MarshalBinary()
		if err := pub.Publish("fp", b); err != nil {
			t.Fatal(err)
		}
		if stall == nil { // a flush waits for the server's answer, which a stall holds
			if err := pub.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(gap)
	}
	out := receive(t, got, n)
	holds = p.Holds()
	slices.Sort(holds)
	return out, holds
}

// subscribe connects to url and subscribes to "fp": each message's time since the instant it
// carries (time.Time's binary form) comes out of the channel.
func subscribe(t *testing.T, url string, n int) (*nats.Conn, <-chan time.Duration) {
	t.Helper()
	sub, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan time.Duration, n)
	if _, err := sub.Subscribe("fp", func(m *nats.Msg) {
		var sent time.Time
		if err := sent.UnmarshalBinary(m.Data); err != nil {
			t.Error(err)
		}
		got <- time.Since(sent)
	}); err != nil {
		t.Fatal(err)
	}
	if err := sub.Flush(); err != nil {
		t.Fatal(err)
	}
	return sub, got
}

// receive waits for n of them, sorted.
func receive(t *testing.T, got <-chan time.Duration, n int) []time.Duration {
	t.Helper()
	out := make([]time.Duration, 0, n)
	for range n {
		select {
		case d := <-got:
			out = append(out, d)
		case <-time.After(10 * time.Second):
			t.Fatalf("received %d of %d", len(out), n)
		}
	}
	slices.Sort(out)
	return out
}

// The delay is what the proxy adds, in every mode: the median publish → receipt time shifts
// by it, within the mode's precision (Ticked: up to a millisecond more) and a shared machine's
// noise (the median without delay moves by a tenth of a millisecond or two under -race).
func TestDelayShiftsLatency(t *testing.T) {
	srv, err := natsdrv.StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	lat, _ := latencies(t, srv, 0, Sleep, 200, time.Millisecond, nil)
	base := lat[100]
	for _, tc := range []struct {
		mode     Mode
		delay    time.Duration
		lo, hi   time.Duration // allowed shift of the median
		modeName string
	}{
		{Sleep, 2 * time.Millisecond, 1700 * time.Microsecond, 2600 * time.Microsecond, "sleep"},
		{Spin, 2 * time.Millisecond, 1700 * time.Microsecond, 2600 * time.Microsecond, "spin"},
		{Ticked, 2 * time.Millisecond, 1700 * time.Microsecond, 4000 * time.Microsecond, "ticked"}, // a tick can be late too
	} {
		lat, holds := latencies(t, srv, tc.delay, tc.mode, 200, time.Millisecond, nil)
		med := lat[100]
		if shift := med - base; shift < tc.lo || shift > tc.hi {
			t.Errorf("%s: median %v, without delay %v: shift %v, want %v…%v", tc.modeName, med, base, shift, tc.lo, tc.hi)
		}
		// What the proxy says it held: never less than the delay, and (Ticked aside, which
		// does not record) its median within the same bound as the shift.
		if tc.mode == Ticked {
			continue
		}
		if len(holds) < 200 || holds[0] < tc.delay || holds[len(holds)/2] > tc.hi {
			t.Errorf("%s: %d holds, shortest %v, median %v: want ≥ 200, ≥ %v, ≤ %v", tc.modeName, len(holds), holds[0], holds[len(holds)/2], tc.delay, tc.hi)
		}
	}
}

// A stall holds everything sent during it until its end, both ways: a message published
// 100 ms into a 500 ms stall arrives about 400 ms later, and nothing is lost.
func TestStallHoldsUntilItsEnd(t *testing.T) {
	srv, err := natsdrv.StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const stall = 500 * time.Millisecond
	got, _ := latencies(t, srv, 0, Sleep, 50, 20*time.Millisecond, func(p *Proxy) { p.Stall(time.Now().Add(-100*time.Millisecond), stall) })
	// 50 messages 20 ms apart from 100 ms into the stall: those sent in its remaining 400 ms
	// (about 20) wait for its end, the first about 400 ms.
	if max := got[len(got)-1]; max < 350*time.Millisecond || max > 550*time.Millisecond { // the burst at its end takes a moment on a busy machine
		t.Errorf("longest wait %v, want about 400ms", max)
	}
	held := 0
	for _, d := range got {
		if d > 10*time.Millisecond {
			held++
		}
	}
	if held < 15 || held > 22 {
		t.Errorf("%d messages held by the stall, want about 20 (latencies %v)", held, got)
	}
}

func TestListenLoopbackOnly(t *testing.T) {
	if _, err := Listen("0.0.0.0:0", "127.0.0.1:1", 0, Sleep); err == nil {
		t.Error("a proxy listening beyond loopback was started")
	}
}
