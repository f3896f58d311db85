package header

import "testing"

// Both layouts round-trip; each payload size picks its layout; foreign bytes are refused.
func TestRoundTrip(t *testing.T) {
	h := Header{Flags: FlagWarmup, Run: 0xdeadbeef, Cell: 7, Producer: 200, Seq: 123456, Sent: 9_876_543_210, Intended: 9_876_000_000}
	cases := []struct {
		name string
		size int
		want Header
	}{
		{"full", Size, h},
		{"full, larger payload", 1024, h},
		{"compact", CompactSize, Header{Compact: true, Flags: FlagWarmup, Cell: 7, Producer: 200, Seq: 123456, Sent: 9_876_543_000, Intended: -1}},
		{"compact, just under full", Size - 1, Header{Compact: true, Flags: FlagWarmup, Cell: 7, Producer: 200, Seq: 123456, Sent: 9_876_543_000, Intended: -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := make([]byte, c.size)
			Put(b, h)
			got, err := Get(b)
			if err != nil || got != c.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
	for _, bad := range [][]byte{nil, []byte("hello world, not ours at all, no header here"), make([]byte, Size)} {
		if _, err := Get(bad); err != ErrNotOurs {
			t.Errorf("Get(%q) = %v, want ErrNotOurs", bad, err)
		}
	}
}

// The compact send time covers days, not minutes: µs in 40 bits.
func TestCompactRange(t *testing.T) {
	b := make([]byte, CompactSize)
	const tenDays = int64(10 * 24 * 3600 * 1e9)
	Put(b, Header{Sent: tenDays})
	if h, _ := Get(b); h.Sent != tenDays {
		t.Fatalf("sent %d, want %d", h.Sent, tenDays)
	}
}
