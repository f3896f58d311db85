// Package ledger counts every message of one cell by producer and sequence number, so a run
// can say exactly how many messages were lost, duplicated or reordered.
package ledger

import (
	"sync"
)

// Ledger is safe for concurrent use by consumer goroutines and the producers.
type Ledger struct {
	mu        sync.Mutex
	producers []producerLog
	frozen    bool
	late      uint64 // received after Freeze
	unknown   uint64 // producer or sequence never issued: corrupt or foreign
	// issuedAfter counts sequences handed out after Freeze (an overloaded generator still
	// sending when the cell's drain ended): not judged, but never outside the accounting.
	issuedAfter uint64
	final       *Tally // the verdict at Freeze
}

type producerLog struct {
	issued    uint64   // sequence numbers 0..issued-1 were handed out
	failed    []uint64 // sequences whose send was not acknowledged
	seen      []uint64 // bitset of received sequences
	unique    uint64
	dup       uint64
	reordered uint64
	// next expected minimum per lane: order is only promised along one lane (one consumer
	// connection, one partition), so the highest sequence seen is kept per lane.
	maxSeq []uint64 // highest seq + 1 per lane; 0 = none yet
}

// New returns a ledger for n producers whose messages arrive over lanes lanes (consumer
// connections or partitions; at least 1).
func New(n, lanes int) *Ledger {
	l := &Ledger{producers: make([]producerLog, n)}
	for i := range l.producers {
		l.producers[i].maxSeq = make([]uint64, max(lanes, 1))
	}
	return l
}

// Issue reserves the next sequence number of producer p. Callers hold the producer's send
// lock, so numbers reach the wire in order.
func (l *Ledger) Issue(p int) uint64 {
	l.mu.Lock()
	seq := l.producers[p].issued
	l.producers[p].issued++
	if l.frozen {
		l.issuedAfter++
	}
	l.mu.Unlock()
	return seq
}

// Failed records that sending seq was not acknowledged: it is not expected to arrive, and if
// it does arrive it is not a loss either way.
func (l *Ledger) Failed(p int, seq uint64) {
	l.mu.Lock()
	l.producers[p].failed = append(l.producers[p].failed, seq)
	l.mu.Unlock()
}

// Receive records one delivery over lane (out-of-range lanes count as lane 0).
func (l *Ledger) Receive(p int, seq uint64, lane int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.frozen {
		l.late++
		return
	}
	if p < 0 || p >= len(l.producers) || seq >= l.producers[p].issued {
		l.unknown++
		return
	}
	pl := &l.producers[p]
	w := int(seq / 64)
	for len(pl.seen) <= w {
		pl.seen = append(pl.seen, 0)
	}
	bit := uint64(1) << (seq % 64)
	if pl.seen[w]&bit != 0 {
		pl.dup++
		return
	}
	pl.seen[w] |= bit
	pl.unique++
	if lane < 0 || lane >= len(pl.maxSeq) {
		lane = 0
	}
	if seq+1 < pl.maxSeq[lane] {
		pl.reordered++
	} else {
		pl.maxSeq[lane] = seq + 1
	}
}

// Tally is the ledger's verdict.
type Tally struct {
	Issued     uint64 `json:"issued"`
	Failed     uint64 `json:"failed"`
	Unique     uint64 `json:"unique_received"`
	Lost       uint64 `json:"lost"`
	Duplicated uint64 `json:"duplicated"`
	Reordered  uint64 `json:"reordered"`
	Late       uint64 `json:"late"`
	Unknown    uint64 `json:"unknown"`
	// IssuedAfterClose: sent after the ledger closed (end of the cell's drain), so neither
	// judged received nor lost. Issued + IssuedAfterClose is every message the cell sent,
	// warm-up included.
	IssuedAfterClose uint64 `json:"issued_after_close"`
}

// Freeze ends the cell's drain period: later deliveries count as late, not received, and the
// returned tally is final.
func (l *Ledger) Freeze() Tally {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.frozen {
		t := l.tally()
		l.final, l.frozen = &t, true
	}
	return l.tallyNow()
}

// Frozen reports whether Freeze was called.
func (l *Ledger) Frozen() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.frozen
}

// Tally counts what is known now. Lost = acknowledged (issued − failed) but not received;
// a failed send that arrived anyway is not counted as lost.
// After Freeze it is the verdict at Freeze, with the late and after-close counts as they
// stand now.
func (l *Ledger) Tally() Tally {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tallyNow()
}

func (l *Ledger) tallyNow() Tally {
	if l.final == nil {
		return l.tally()
	}
	t := *l.final
	t.Late, t.Unknown, t.IssuedAfterClose = l.late, l.unknown, l.issuedAfter
	return t
}

func (l *Ledger) tally() Tally {
	t := Tally{Late: l.late, Unknown: l.unknown}
	for i := range l.producers {
		pl := &l.producers[i]
		t.Issued += pl.issued
		t.Unique += pl.unique
		t.Duplicated += pl.dup
		t.Reordered += pl.reordered
		failedNotSeen := uint64(0)
		for _, s := range pl.failed {
			t.Failed++
			if w := int(s / 64); w >= len(pl.seen) || pl.seen[w]&(1<<(s%64)) == 0 {
				failedNotSeen++
			}
		}
		missing := pl.issued - pl.unique - failedNotSeen
		t.Lost += missing
	}
	return t
}
