// Package payload makes message bodies of an exact size. Random content is the default so a
// broker or client that compresses cannot make a benchmark look better than real traffic.
package payload

import (
	"fmt"
	"math/rand/v2"
)

// window is how far the start of each random message may shift inside the pool, so that
// consecutive messages differ even though they share one pool (defeats batch compression
// that would otherwise find each message repeated).
const window = 4096

// Source produces bodies of one size.
type Source struct {
	size int
	pool []byte // random: size+window bytes; zeros and file: exactly size bytes
	rnd  bool
}

// New returns a Source for content "random", "zeros" or "file" (then path is read and
// repeated or cut to size).
func New(content, path string, size int) (*Source, error) {
	s := &Source{size: size}
	switch content {
	case "random", "":
		s.rnd = true
		s.pool = make([]byte, size+window)
		r := rand.NewChaCha8([32]byte{byte(size), byte(size >> 8), byte(size >> 16), 'm', 'q'})
		_, _ = r.Read(s.pool)
	case "zeros":
		s.pool = make([]byte, size)
	case "file":
		b, err := readFile(path, size)
		if err != nil {
			return nil, err
		}
		if len(b) == 0 {
			return nil, fmt.Errorf("payload file %s is empty", path)
		}
		s.pool = make([]byte, size)
		for i := 0; i < size; i += len(b) {
			copy(s.pool[i:], b)
		}
	default:
		return nil, fmt.Errorf("unknown payload content %q", content)
	}
	return s, nil
}

// Next returns a fresh body of the Source's size. The caller owns it (drivers with
// asynchronous sends keep it until the broker acknowledged it).
func (s *Source) Next() []byte { return s.NextInto(nil) }

// NextInto fills buf (grown when too small) with the next body and returns it: for
// publishers that copy the value before Send returns, one buffer serves every message.
func (s *Source) NextInto(buf []byte) []byte {
	b := buf
	if cap(b) < s.size {
		b = make([]byte, s.size)
	}
	b = b[:s.size]
	off := 0
	if s.rnd {
		off = rand.IntN(window)
	}
	copy(b, s.pool[off:off+s.size])
	return b
}
