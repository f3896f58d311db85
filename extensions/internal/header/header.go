// Package header is the fixed binary header mqbench writes at the start of every payload, so
// that a consumer can attribute each message (run, cell, producer, sequence) and measure its
// latency without any JavaScript on the consume path.
//
// Layout (little-endian, Size bytes):
//
//	0  magic   "MQ"
//	2  version 2
//	3  flags   bit 0: sent during warm-up
//	4  run     uint32, random per run (ignore foreign messages left in a destination)
//	8  cell    uint16, index into the scenario's matrix
//	10 producer uint16, producer connection index
//	12 seq     uint48, per (runner, cell, producer), from 0
//	18 runner  uint16, the distributed runner that sent it (1-based; 0 in a plain run)
//	20 sent    int64, ns on the run's clock when the message was handed to the client
//	28 intended int64, ns on the same clock when the open-model schedule wanted it sent
//
// Version 1 had a uint64 seq at 12 and no runner; it is still read (runner 0). Version 2
// keeps the size: 2^48 sequence numbers per producer and cell are years at any rate. In a
// plain run "the run's clock" is ns since the process started; with a shared destination it
// is the reference clock every runner measured its offset to (see runner/clock.go), so a
// time written on one machine can be compared with one read on another.
package header

import (
	"encoding/binary"
	"errors"
)

// Size is the header length; payloads are at least this large.
const Size = 36

const (
	magic0, magic1 = 'M', 'Q'
	version        = 2
	version1       = 1
	// MaxSeq bounds a version 2 sequence number (48 bits).
	MaxSeq = 1<<48 - 1
	// FlagWarmup marks messages sent during the warm-up, excluded from latency distributions.
	FlagWarmup = 1
)

// Header is the decoded header.
type Header struct {
	Compact  bool // read from a compact header: Run is 0, Intended is -1, Sent has µs resolution
	Flags    uint8
	Run      uint32
	Cell     uint16
	Producer uint16
	Runner   uint16 // the sending runner of a distributed run (0: a plain run, or version 1)
	Seq      uint64
	Sent     int64
	Intended int64
}

// ErrNotOurs is returned for payloads that do not start with an mqbench header.
var ErrNotOurs = errors.New("payload carries no mqbench header")

// Put writes h at the start of b: the full header when b has room, the compact one when b
// is shorter than Size (len(b) >= CompactSize).
func Put(b []byte, h Header) {
	if len(b) < Size {
		putCompact(b, h)
		return
	}
	b[0], b[1], b[2], b[3] = magic0, magic1, version, h.Flags
	binary.LittleEndian.PutUint32(b[4:], h.Run)
	binary.LittleEndian.PutUint16(b[8:], h.Cell)
	binary.LittleEndian.PutUint16(b[10:], h.Producer)
	binary.LittleEndian.PutUint64(b[12:], h.Seq&MaxSeq) // 6 bytes; 18..19 overwritten next
	binary.LittleEndian.PutUint16(b[18:], h.Runner)
	binary.LittleEndian.PutUint64(b[20:], uint64(h.Sent))
	binary.LittleEndian.PutUint64(b[28:], uint64(h.Intended))
}

// Get decodes the header at the start of b, full or compact.
func Get(b []byte) (Header, error) {
	if len(b) > 0 && b[0]&0xFE == compactMarker {
		return getCompact(b)
	}
	if len(b) < Size || b[0] != magic0 || b[1] != magic1 || (b[2] != version && b[2] != version1) {
		return Header{}, ErrNotOurs
	}
	h := Header{
		Flags:    b[3],
		Run:      binary.LittleEndian.Uint32(b[4:]),
		Cell:     binary.LittleEndian.Uint16(b[8:]),
		Producer: binary.LittleEndian.Uint16(b[10:]),
		Seq:      binary.LittleEndian.Uint64(b[12:]),
		Sent:     int64(binary.LittleEndian.Uint64(b[20:])),
		Intended: int64(binary.LittleEndian.Uint64(b[28:])),
	}
	if b[2] == version {
		h.Seq &= MaxSeq
		h.Runner = binary.LittleEndian.Uint16(b[18:])
	}
	return h, nil
}
