package faultproxy

import (
	"slices"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver/natsdrv"
	"github.com/nats-io/nats.go"
)

// A frame is counted once wherever the reads cut the stream: whole in a chunk, cut in two,
// spread over three chunks shorter than itself.
func TestFrameCounterCountsFramesCutByReads(t *testing.T) {
	frame := []byte("PUB s ")
	for _, tc := range []struct {
		name   string
		chunks []string
		want   int
	}{
		{"whole", []string{"PUB s 3\r\nabc\r\nPUB s 3\r\nabc\r\n"}, 2},
		{"cut in two", []string{"PUB s 3\r\nabc\r\nPU", "B s 3\r\nabc\r\n"}, 2},
		{"cut at its last byte", []string{"xxPUB s", " 3\r\n"}, 1},
		{"over three short chunks", []string{"xP", "UB", " s 3"}, 1},
		{"none, a near miss", []string{"PUB t 3\r\n", "PUB", "  s"}, 0},
		{"two in a row, cut between", []string{"PUB s PUB", " s "}, 2},
	} {
		var c frameCounter
		got := 0
		for _, ch := range tc.chunks {
			got += c.count(frame, []byte(ch))
		}
		if got != tc.want {
			t.Errorf("%s: counted %d, want %d", tc.name, got, tc.want)
		}
	}
}

// Through a real server, with the publisher and the subscriber both behind a stalled proxy:
// the proxy pairs every message's way in and out, and its time for each is what the
// subscriber measured, less the subscriber's own read (within a few milliseconds on a busy
// machine; the stall moves the slowest by hundreds).
func TestTransitsAreWhatTheReceiverSaw(t *testing.T) {
	srv, err := natsdrv.StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	p, err := Listen("127.0.0.1:0", srv.URL[len("nats://"):], 0, Sleep)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Trace([]byte("PUB fp "), []byte("MSG fp "))
	const n = 60
	sub, got := subscribe(t, "nats://"+p.Addr(), n)
	defer sub.Close()
	pub, err := nats.Connect("nats://" + p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	p.Stall(time.Now().Add(100*time.Millisecond), 300*time.Millisecond)
	for range n {
		b, _ := time.Now().MarshalBinary()
		if err := pub.Publish("fp", b); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	saw := receive(t, got, n)
	ts, err := Transits(p.Passages())
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != n {
		t.Fatalf("%d transits, want %d", len(ts), n)
	}
	slices.Sort(ts)
	if ts[n-1] < 200*time.Millisecond {
		t.Errorf("longest transit %v: the 300 ms stall was not seen", ts[n-1])
	}
	for k := range ts {
		if d := saw[k] - ts[k]; d < -time.Millisecond || d > 5*time.Millisecond {
			t.Errorf("message %d of %d (sorted): the subscriber saw %v, the proxy %v", k, n, saw[k], ts[k])
		}
	}
}
