package ledger

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
)

// A shared destination spreads one cell's ledger over processes: each runner issues,
// confirms and fails only its own producers' sequences, and each consuming runner receives
// some of every runner's. Record is what one runner knew when its ledger froze; Merge
// unions the runners' records into the one ledger a single process would have kept, so
// lost, duplicated and reordered stay exact however messages crossed machines.

// Record is one runner's ledger of one cell, as written into its shard.
type Record struct {
	Runner        int              `json:"runner"`
	Producers     []ProducerRecord `json:"producers"` // every runner's producers, in ledger order
	Late          uint64           `json:"late"`
	Unknown       uint64           `json:"unknown"`
	IssuedAfter   uint64           `json:"issued_after_close"`
	BrokerBacklog int64            `json:"broker_backlog"` // -1: not known
	Consumes      bool             `json:"consumes"`       // this runner had consumers
}

// ProducerRecord is one producer's sequences as one runner saw them: what it issued,
// confirmed and failed (its owner only), and what each subscription received.
type ProducerRecord struct {
	Issued    uint64      `json:"issued"`
	Judged    uint64      `json:"judged"`
	Failed    Bits        `json:"failed"`
	Confirmed Bits        `json:"confirmed"`
	Subs      []SubRecord `json:"subs"`
}

// SubRecord is what one subscription of one runner received of one producer.
type SubRecord struct {
	Seen      Bits   `json:"seen"`
	LateSeen  Bits   `json:"late_seen,omitempty"` // first received after the freeze
	Dup       uint64 `json:"duplicated"`
	Reordered uint64 `json:"reordered"`
}

// Bits is a bitset, written as base64 of its little-endian words (an eighth of JSON numbers).
type Bits []uint64

// MarshalJSON writes the bitset as base64.
func (b Bits) MarshalJSON() ([]byte, error) {
	raw := make([]byte, 8*len(b))
	for i, w := range b {
		binary.LittleEndian.PutUint64(raw[8*i:], w)
	}
	return json.Marshal(base64.StdEncoding.EncodeToString(raw))
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (b *Bits) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(raw)%8 != 0 {
		return fmt.Errorf("bitset: not base64 of 64-bit words")
	}
	*b = make(Bits, len(raw)/8)
	for i := range *b {
		(*b)[i] = binary.LittleEndian.Uint64(raw[8*i:])
	}
	return nil
}

// Record is the ledger as it stands (call it after Freeze).
func (l *Ledger) Record(runner int) Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := Record{Runner: runner, Late: l.late, Unknown: l.unknown, IssuedAfter: l.issuedAfter,
		BrokerBacklog: l.brokerBacklog, Consumes: !l.noConsumers}
	for i := range l.producers {
		pl := &l.producers[i]
		pr := ProducerRecord{Issued: pl.issued, Judged: pl.judged,
			Failed: pl.full(pl.failed, 0), Confirmed: pl.full(pl.confirmed, ^uint64(0))}
		for seq := range pl.failedBelow {
			pr.Failed[seq/64] |= 1 << (seq % 64)
		}
		for j := range pl.subs {
			rl := &pl.subs[j]
			pr.Subs = append(pr.Subs, SubRecord{Seen: pl.full(rl.seen, ^uint64(0)), LateSeen: pl.full(rl.lateSeen, 0),
				Dup: rl.dup, Reordered: rl.reordered})
		}
		r.Producers = append(r.Producers, pr)
	}
	return r
}

// MaxSequences bounds one producer's sequences in a merged ledger: 2^36 sequences need 8 GiB
// of received bits per subscription, more than any runner records, and a shard claiming more
// (2^63) would keep the merge looping for hours.
const MaxSequences = 1 << 36

// Merge unions the records of every runner of one cell into the run's tally:
//   - issued, judged, confirmed and failed come from the producer's own runner (the
//     others issued nothing of it);
//   - a sequence received by one runner's consumers and by another's is a duplicate, as
//     it would be within one process (they share one consumer group);
//   - a sequence received at or beyond its producer's judged count was sent after the
//     cell's close: late; beyond what it issued at all: unknown;
//   - reordered adds up: order is promised per lane, and lanes are per runner (a consumer
//     cannot tell another runner's never-issued sequence from a real one, so such a
//     corrupt sequence arriving first on a lane also counts later ones as reordered);
//   - a sequence first received after a runner's freeze, and by no runner before its
//     own, is held (it arrived late);
//   - held is also min(lost, the broker's backlog): every runner read the same destination,
//     so the largest reading is taken, not their sum.
func Merge(recs []Record) (Tally, error) {
	// A shard is untrusted input: its counts bound loops over the bitsets (missing walks
	// issued/64 words), so they are checked before anything loops.
	if len(recs) == 0 {
		return Tally{}, fmt.Errorf("no ledger to merge")
	}
	n, subs := len(recs[0].Producers), 0
	if n > 0 {
		subs = len(recs[0].Producers[0].Subs)
	}
	m := &Ledger{producers: make([]producerLog, n), frozen: true, brokerBacklog: -1, noConsumers: true}
	for _, r := range recs {
		if len(r.Producers) != n {
			return Tally{}, fmt.Errorf("runner %d's ledger has %d producers, runner %d's %d", r.Runner, len(r.Producers), recs[0].Runner, n)
		}
		m.late += r.Late
		m.unknown += r.Unknown
		m.issuedAfter += r.IssuedAfter
		m.brokerBacklog = max(m.brokerBacklog, r.BrokerBacklog)
		m.noConsumers = m.noConsumers && !r.Consumes
	}
	for i := range m.producers {
		pl := &m.producers[i]
		pl.subs = make([]recvLog, max(subs, 1))
		for _, r := range recs {
			pr := &r.Producers[i]
			if len(pr.Subs) != subs {
				return Tally{}, fmt.Errorf("runner %d's ledger has %d subscriptions, runner %d's %d", r.Runner, len(pr.Subs), recs[0].Runner, subs)
			}
			if pr.Issued > MaxSequences || pr.Judged > pr.Issued {
				return Tally{}, fmt.Errorf("runner %d's producer %d claims %d sequences issued (%d judged): more than a ledger records (%d) or judged beyond issued", r.Runner, i, pr.Issued, pr.Judged, uint64(MaxSequences))
			}
			if pr.Issued > 0 && pl.issued > 0 {
				return Tally{}, fmt.Errorf("producer %d was issued sequences by two runners (runner %d among them)", i, r.Runner)
			}
			if pr.Issued > 0 {
				pl.issued, pl.judged = pr.Issued, pr.Judged
				pl.failed, pl.confirmed = append([]uint64{}, pr.Failed...), append([]uint64{}, pr.Confirmed...)
			}
		}
		for j := range pl.subs {
			rl := &pl.subs[j]
			for _, r := range recs {
				sr := &r.Producers[i].Subs[j]
				rl.dup += sr.Dup
				rl.reordered += sr.Reordered
				for w, bs := range sr.Seen {
					rl.dup += uint64(bits.OnesCount64(word(rl.seen, w) & bs)) // seen by another runner too
					orWord(&rl.seen, w, bs)
				}
				for w, bs := range sr.LateSeen { // held only where no runner had it in time (missing)
					orWord(&rl.lateSeen, w, bs)
				}
			}
			// Beyond judged: sent after the close (late), or never issued (unknown).
			for w := range rl.seen {
				beyond := rl.seen[w] &^ mask(w, pl.judged)
				if uint64(w)*64 >= pl.judged {
					beyond = rl.seen[w]
				}
				never := beyond &^ mask(w, pl.issued)
				if uint64(w)*64 >= pl.issued {
					never = beyond
				}
				m.unknown += uint64(bits.OnesCount64(never))
				m.late += uint64(bits.OnesCount64(beyond &^ never))
				rl.seen[w] &^= beyond
				rl.unique += uint64(bits.OnesCount64(rl.seen[w]))
			}
		}
	}
	return m.tally(), nil
}
