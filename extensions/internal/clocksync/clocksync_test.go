package clocksync

import (
	"net"
	"testing"
	"time"
)

// A local clock shifted by a known offset (both signs, ms and s) is measured within the
// reported uncertainty of that offset, over a real TCP round trip.
func TestMeasure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { _ = Serve(ln) }()
	for _, skew := range []time.Duration{0, 3 * time.Millisecond, -3 * time.Millisecond, 2 * time.Second, -2 * time.Second} {
		now := func() int64 { return time.Now().UnixNano() + int64(skew) }
		s, err := Measure(ln.Addr().String(), 8, 2*time.Second, now)
		if err != nil {
			t.Fatal(err)
		}
		if d := s.Offset - int64(skew); d < -s.Uncertainty || d > s.Uncertainty || s.Uncertainty <= 0 || s.Uncertainty > int64(50*time.Millisecond) {
			t.Errorf("skew %v: measured %v ± %v", skew, time.Duration(s.Offset), time.Duration(s.Uncertainty))
		}
	}
	if _, err := Measure("127.0.0.1:1", 1, time.Second, func() int64 { return 0 }); err == nil {
		t.Error("no reference, no error")
	}
}
