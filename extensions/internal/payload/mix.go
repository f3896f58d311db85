package payload

import (
	"math/rand/v2"
	"sync/atomic"
)

// Mix produces bodies of several sizes in fixed shares: class i of weights[i] out of every
// sum(weights) messages, interleaved evenly (smooth weighted round-robin), so the shares hold
// exactly over each cycle and closely over any stretch of it, not only on average.
type Mix struct {
	srcs  []*Source
	order []uint8 // the class of each message of a cycle
	n     atomic.Uint64
}

// NewMix returns a Mix of spec's content at sizes with weights (at most 256 classes).
func NewMix(spec Spec, sizes, weights []int) (*Mix, error) {
	m := &Mix{}
	total := 0
	for i, size := range sizes {
		s, err := New(spec, size)
		if err != nil {
			return nil, err
		}
		m.srcs = append(m.srcs, s)
		total += weights[i]
	}
	current := make([]int, len(weights))
	for range total {
		best := 0
		for i, w := range weights {
			current[i] += w
			if current[i] > current[best] {
				best = i
			}
		}
		current[best] -= total
		m.order = append(m.order, uint8(best))
	}
	return m, nil
}

// Next is NextInto(nil).
func (m *Mix) Next() []byte { return m.NextInto(nil) }

// NextInto is the next message's body, of its class's size.
func (m *Mix) NextInto(buf []byte) []byte {
	i := m.n.Add(1) - 1
	return m.srcs[m.order[i%uint64(len(m.order))]].NextInto(buf)
}

// Body is a source of message bodies: one size (Source) or a mix (Mix).
type Body interface {
	Next() []byte
	NextInto(buf []byte) []byte
}

var (
	_ Body = (*Source)(nil)
	_ Body = (*Mix)(nil)
)

// Varied produces bodies of any size up to a largest one, from one pool (a replay's rows).
type Varied struct{ s *Source }

// NewVaried returns a Varied of spec's content for sizes up to largest.
func NewVaried(spec Spec, largest int) (*Varied, error) {
	s, err := New(spec, largest)
	return &Varied{s}, err
}

// Next is a body of the largest size.
func (v *Varied) Next() []byte { return v.s.Next() }

// NextInto is a body of the largest size, in buf.
func (v *Varied) NextInto(buf []byte) []byte { return v.s.NextInto(buf) }

// NextSized is a body of size bytes (at most the largest), in buf when it is large enough.
func (v *Varied) NextSized(buf []byte, size int) []byte {
	b := buf
	if cap(b) < size {
		b = make([]byte, size)
	}
	b = b[:size]
	off := 0
	if v.s.rnd {
		off = rand.IntN(window)
	}
	copy(b, v.s.pool[off:off+size])
	return b
}

var _ Body = (*Varied)(nil)
