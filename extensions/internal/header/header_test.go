package header

import "testing"

// Both layouts round-trip; each payload size picks its layout; foreign bytes are refused.
func TestRoundTrip(t *testing.T) {
	h := Header{Flags: FlagWarmup, Run: 0xdeadbeef, Cell: 7, Producer: 200, Runner: 3, Seq: 123456, Sent: 9_876_543_210, Intended: 9_876_000_000}
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

// Version 1 headers (a uint64 seq, no runner) stay readable: runner 0, the whole seq; a
// version 2 runner and a 48-bit seq do not bleed into each other.
func TestVersions(t *testing.T) {
	v1 := make([]byte, Size)
	copy(v1, "MQ\x01\x00")
	v1[12], v1[17], v1[19] = 5, 1, 0x80 // seq 5 + 1<<40 + 1<<63: only version 1 has those bits
	cases := []struct {
		name   string
		b      []byte
		runner uint16
		seq    uint64
	}{
		{"version 1", v1, 0, 5 + 1<<40 + 1<<63},
		{"version 2, max seq and runner", func() []byte {
			b := make([]byte, Size)
			Put(b, Header{Runner: 0xffff, Seq: MaxSeq})
			return b
		}(), 0xffff, MaxSeq},
		{"version 2, runner 1", func() []byte {
			b := make([]byte, Size)
			Put(b, Header{Runner: 1, Seq: 7})
			return b
		}(), 1, 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := Get(c.b)
			if err != nil || h.Runner != c.runner || h.Seq != c.seq {
				t.Fatalf("got %+v, %v; want runner %d seq %d", h, err, c.runner, c.seq)
			}
		})
	}
	v3 := make([]byte, Size)
	copy(v3, "MQ\x03")
	if _, err := Get(v3); err != ErrNotOurs {
		t.Errorf("version 3: %v, want ErrNotOurs", err)
	}
}
