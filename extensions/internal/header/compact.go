package header

import "encoding/binary"

// CompactSize is the header written into payloads smaller than Size (down to 12 bytes, the
// classic "broker throughput" message). It keeps what the ledger and end-to-end latency need
// and drops the rest:
//
//	0  marker  0xA0 | flags (bit 0: warm-up)
//	1  cell     uint8
//	2  producer uint8
//	3  seq      uint32 (per cell and producer)
//	7  sent     uint40, µs on the run's clock (12.7 days of range)
//
// No run id (messages left from another run cannot be told apart, except by sequence
// numbers never issued) and no intended time (no intended-time latency for these cells).
const CompactSize = 12

// Limits a cell must respect to use the compact header.
const (
	CompactMaxCells     = 256
	CompactMaxProducers = 256
)

const compactMarker = 0xA0

func putCompact(b []byte, h Header) {
	_ = b[CompactSize-1]
	b[0] = compactMarker | (h.Flags & FlagWarmup)
	b[1] = uint8(h.Cell)
	b[2] = uint8(h.Producer)
	binary.LittleEndian.PutUint32(b[3:], uint32(h.Seq))
	us := uint64(h.Sent / 1000)
	b[7], b[8], b[9], b[10], b[11] = byte(us), byte(us>>8), byte(us>>16), byte(us>>24), byte(us>>32)
}

func getCompact(b []byte) (Header, error) {
	if len(b) < CompactSize || b[0]&0xFE != compactMarker {
		return Header{}, ErrNotOurs
	}
	us := uint64(b[7]) | uint64(b[8])<<8 | uint64(b[9])<<16 | uint64(b[10])<<24 | uint64(b[11])<<32
	return Header{
		Compact:  true,
		Flags:    b[0] & FlagWarmup,
		Cell:     uint16(b[1]),
		Producer: uint16(b[2]),
		Seq:      uint64(binary.LittleEndian.Uint32(b[3:])),
		Sent:     int64(us) * 1000,
		Intended: -1,
	}, nil
}
