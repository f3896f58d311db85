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

// Spec is what bodies hold: Content "random", "zeros" or "file" (then File is read and
// repeated or cut to size); random content with Compressibility c (0 to 0.9) has a share c of
// its 64-byte blocks filled with one repeated byte, so a codec shrinks it to about 1 − c.
type Spec struct {
	Content, File   string
	Compressibility float64
}

// compressBlock is the unit of compressible content: long enough for every codec to find the
// repeat, short enough that a message of a few hundred bytes has the share.
const compressBlock = 64

// New returns a Source of spec's content at size bytes.
func New(spec Spec, size int) (*Source, error) {
	s := &Source{size: size}
	switch spec.Content {
	case "random", "":
		s.rnd = true
		s.pool = make([]byte, size+window)
		r := rand.NewChaCha8([32]byte{byte(size), byte(size >> 8), byte(size >> 16), 'm', 'q'})
		_, _ = r.Read(s.pool)
		if c := spec.Compressibility; c > 0 {
			// Blocks chosen evenly (every block's share of repeats is c within one block), so
			// any window of the pool, each message's, holds the share.
			acc := 0.0
			for i := 0; i < len(s.pool); i += compressBlock {
				if acc += c; acc >= 1 {
					acc--
					clear(s.pool[i:min(i+compressBlock, len(s.pool))])
				}
			}
		}
	case "zeros":
		s.pool = make([]byte, size)
	case "file":
		b, err := readFile(spec.File, size)
		if err != nil {
			return nil, err
		}
		if len(b) == 0 {
			return nil, fmt.Errorf("payload file %s is empty", spec.File)
		}
		s.pool = make([]byte, size)
		for i := 0; i < size; i += len(b) {
			copy(s.pool[i:], b)
		}
	default:
		return nil, fmt.Errorf("unknown payload content %q", spec.Content)
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
