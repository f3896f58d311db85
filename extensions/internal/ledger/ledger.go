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
	// noConsumers: the run has no consumer; messages are unconsumed, not lost
	noConsumers bool
}

type producerLog struct {
	issued uint64   // sequence numbers 0..issued-1 were handed out
	failed []uint64 // sequences whose send was not acknowledged
	subs   []recvLog
}

// recvLog is what one subscription received of one producer: every subscription (a fan-out
// consumer group) is owed every message.
type recvLog struct {
	seen      []uint64 // bitset of received sequences
	unique    uint64
	dup       uint64
	reordered uint64
	// next expected minimum per lane: order is only promised along one lane (one consumer
	// connection, one partition), so the highest sequence seen is kept per lane.
	maxSeq []uint64 // highest seq + 1 per lane; 0 = none yet
}

// New returns a ledger for n producers whose messages arrive over lanes lanes (consumer
// connections or partitions; at least 1) of one subscription.
func New(n, lanes int) *Ledger { return NewFanOut(n, lanes, 1) }

// NewFanOut returns a ledger for n producers whose every message is owed to each of subs
// subscriptions (at least 1), each receiving over lanes lanes. With no lanes at all (no
// consumer runs) nothing can be judged received or lost: the tally says Unconsumed instead.
func NewFanOut(n, lanes, subs int) *Ledger {
	l := &Ledger{producers: make([]producerLog, n), noConsumers: lanes < 1}
	for i := range l.producers {
		l.producers[i].subs = make([]recvLog, max(subs, 1))
		for j := range l.producers[i].subs {
			l.producers[i].subs[j].maxSeq = make([]uint64, max(lanes, 1))
		}
	}
	return l
}

// SetUnconsumed says whether anybody consumes this ledger's messages: while nobody does, what
// was not received is unconsumed, not lost.
func (l *Ledger) SetUnconsumed(on bool) {
	l.mu.Lock()
	l.noConsumers = on
	l.mu.Unlock()
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

// Receive records one delivery over lane of subscription 0 (out-of-range lanes count as lane 0).
func (l *Ledger) Receive(p int, seq uint64, lane int) { l.ReceiveSub(p, seq, lane, 0) }

// ReceiveSub records one delivery over lane of subscription sub (out-of-range lanes and
// subscriptions count as 0).
func (l *Ledger) ReceiveSub(p int, seq uint64, lane, sub int) {
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
	if sub < 0 || sub >= len(pl.subs) {
		sub = 0
	}
	rl := &pl.subs[sub]
	w := int(seq / 64)
	for len(rl.seen) <= w {
		rl.seen = append(rl.seen, 0)
	}
	bit := uint64(1) << (seq % 64)
	if rl.seen[w]&bit != 0 {
		rl.dup++
		return
	}
	rl.seen[w] |= bit
	rl.unique++
	if lane < 0 || lane >= len(rl.maxSeq) {
		lane = 0
	}
	if seq+1 < rl.maxSeq[lane] {
		rl.reordered++
	} else {
		rl.maxSeq[lane] = seq + 1
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
	// Unconsumed: acknowledged messages of a run without consumers (workload.consumers: 0),
	// which nobody was there to receive: not lost, not known to be delivered either.
	Unconsumed uint64 `json:"unconsumed"`
	// Subscriptions: with fan-out (several subscriptions, each owed every message), each
	// one's own unique_received / lost / duplicated / reordered; the totals above sum them.
	Subscriptions []SubTally `json:"subscriptions,omitempty"`
}

// SubTally is one subscription's share of the verdict.
type SubTally struct {
	Unique     uint64 `json:"unique_received"`
	Lost       uint64 `json:"lost"`
	Duplicated uint64 `json:"duplicated"`
	Reordered  uint64 `json:"reordered"`
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
	var subs []SubTally
	if len(l.producers) > 0 && len(l.producers[0].subs) > 1 {
		subs = make([]SubTally, len(l.producers[0].subs))
	}
	for i := range l.producers {
		pl := &l.producers[i]
		t.Issued += pl.issued
		t.Failed += uint64(len(pl.failed))
		for j := range pl.subs {
			rl := &pl.subs[j]
			failedNotSeen := uint64(0)
			for _, s := range pl.failed {
				if w := int(s / 64); w >= len(rl.seen) || rl.seen[w]&(1<<(s%64)) == 0 {
					failedNotSeen++
				}
			}
			missing := pl.issued - rl.unique - failedNotSeen
			t.Unique += rl.unique
			t.Duplicated += rl.dup
			t.Reordered += rl.reordered
			t.Lost += missing
			if subs != nil {
				subs[j].Unique += rl.unique
				subs[j].Duplicated += rl.dup
				subs[j].Reordered += rl.reordered
				subs[j].Lost += missing
			}
		}
	}
	t.Subscriptions = subs
	if l.noConsumers {
		t.Unconsumed, t.Lost = t.Lost, 0
	}
	return t
}
