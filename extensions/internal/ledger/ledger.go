// Package ledger counts every message of one cell by producer and sequence number, so a run
// can say exactly how many messages were lost, duplicated or reordered.
package ledger

import (
	"math/bits"
	"sync"
)

// Ledger is safe for concurrent use by consumer goroutines and the producers.
//
// Every sequence a producer is issued ends up in exactly one of these, per subscription:
// received (unique), failed (the send or its acknowledgement failed, and it never arrived),
// lost (confirmed, never received), unconfirmed (its outcome still unknown when the ledger
// froze), or held: not received by the freeze, but first received after it (it arrived,
// late: whatever its send's outcome, it is not lost), or, after the broker was asked, still
// in the broker for the run's consumers. Receipts stop counting at Freeze; confirmations and
// failures of sequences issued before it still move them out of unconfirmed afterwards, so
// a late answer from the broker is never mistaken for a loss or hidden as one, until Seal
// (the run closed): from then on nothing changes the verdict.
type Ledger struct {
	mu        sync.Mutex
	producers []producerLog
	frozen    bool
	// sealed: the run closed its consumers and stopped awaiting acknowledgements (Seal); the
	// verdict is judged on what the ledger says then, so nothing after it changes a count.
	sealed bool
	late   uint64 // received after Freeze
	// lateFirst: sequences first received after the freeze (recvLog.lateSeen); lateAtBacklog
	// is lateFirst when the broker's backlog was read (SetBrokerBacklog): those received
	// later were still in the backlog read, and are held already as late receipts.
	lateFirst, lateAtBacklog uint64
	unknown                  uint64 // producer or sequence never issued: corrupt or foreign
	// issuedAfter counts sequences handed out after Freeze (an overloaded generator still
	// sending when the cell's drain ended): not judged, but never outside the accounting.
	issuedAfter uint64
	// noConsumers: the run has no consumer; messages are unconsumed, not lost
	noConsumers bool
	// brokerBacklog is what the broker said it still held for the run's consumers when the
	// ledger froze (SetBrokerBacklog); -1 while not known.
	brokerBacklog int64
	// A shared destination (SetShared): producers hold every runner's producers, runner r's
	// producer p at (r-1)*per + p; this process issues only self's. Receipts of another
	// runner's producers are recorded without knowing what it issued: the merge judges them.
	per, self, runners int
}

type producerLog struct {
	issued uint64 // sequence numbers 0..issued-1 were handed out
	// judged is issued at Freeze: only sequences below it are judged (0 until then)
	judged    uint64
	failed    []uint64 // bitset: the send or its acknowledgement failed
	confirmed []uint64 // bitset: the broker acknowledged it (or the client took it, fire-and-forget)
	subs      []recvLog
	// done: words dropped from the front of every bitset above, settled (compact.go);
	// failedBelow: sequences among them that failed after they settled
	done        int
	failedBelow map[uint64]struct{}
}

// recvLog is what one subscription received of one producer: every subscription (a fan-out
// consumer group) is owed every message.
type recvLog struct {
	seen []uint64 // bitset of received sequences
	// lateSeen: bitset of sequences first received after the freeze (not in seen): they
	// arrived, so they are held, not lost (ledger without consumers aside: unconsumed).
	lateSeen  []uint64
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
	l := &Ledger{producers: make([]producerLog, n), noConsumers: lanes < 1, brokerBacklog: -1}
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

// SetShared sizes the ledger for runners runners of per producers each, this process being
// runner self (1-based), before anything is issued: Issue, Failed and Confirmed then take
// this runner's producer index, ReceiveFrom the sender's runner and producer.
func (l *Ledger) SetShared(runners, self int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	per := len(l.producers)
	l.per, l.self, l.runners = per, self, runners
	if per == 0 {
		return // a consume-only cell: nobody issues anything in it
	}
	subs, lanes := len(l.producers[0].subs), len(l.producers[0].subs[0].maxSeq)
	l.producers = NewFanOut(per*runners, lanes, subs).producers
}

// own maps this runner's producer index to its place in the ledger.
func (l *Ledger) own(p int) int {
	if l.runners > 0 {
		return (l.self-1)*l.per + p
	}
	return p
}

// Issue reserves the next sequence number of producer p. Callers hold the producer's send
// lock, so numbers reach the wire in order.
func (l *Ledger) Issue(p int) uint64 {
	l.mu.Lock()
	p = l.own(p)
	seq := l.producers[p].issued
	l.producers[p].issued++
	if l.frozen {
		l.issuedAfter++
	}
	l.mu.Unlock()
	return seq
}

// Failed records that sending seq was not acknowledged: it is not expected to arrive, and if
// it does arrive it is not a loss either way. A failure wins over a confirmation.
func (l *Ledger) Failed(p int, seq uint64) {
	l.mu.Lock()
	if !l.sealed {
		l.producers[l.own(p)].fail(seq)
	}
	l.mu.Unlock()
}

// Confirmed records that the broker acknowledged seq (or, with no acknowledgement to wait
// for, that the client took it without error): from now on, not receiving it is a loss.
func (l *Ledger) Confirmed(p int, seq uint64) {
	l.mu.Lock()
	if !l.sealed {
		pl, w := &l.producers[l.own(p)], int(seq/64)
		if w >= pl.done {
			pl.set(&pl.confirmed, w, 1<<(seq%64))
			pl.settle(w)
		}
	}
	l.mu.Unlock()
}

// SetBrokerBacklog records how many messages the broker still holds for the run's consumers,
// read once as the ledger froze (n < 0: not known). Up to that many lost messages count as
// held instead: acknowledged, not delivered, but not gone either. The broker's count is not
// per message, so held is an upper bound on what it holds of this cell's losses.
//
// The backlog is read after the freeze, and the run's consumers go on taking messages from
// the broker meanwhile: those left the broker's count but were received (late), held as
// late receipts; those received after the read are in the count and held as late receipts
// too, so they are taken out of what the count can excuse. Call it after the read returns.
func (l *Ledger) SetBrokerBacklog(n int64) {
	l.mu.Lock()
	l.brokerBacklog = n
	l.lateAtBacklog = l.lateFirst
	l.mu.Unlock()
}

// orWord ORs bits into word w of a bitset, growing it as needed.
func orWord(set *[]uint64, w int, bits uint64) {
	for len(*set) <= w {
		*set = append(*set, 0)
	}
	(*set)[w] |= bits
}

// Receive records one delivery over lane of subscription 0 (out-of-range lanes count as lane 0).
func (l *Ledger) Receive(p int, seq uint64, lane int) { l.ReceiveSub(p, seq, lane, 0) }

// ReceiveSub records one delivery over lane of subscription sub (out-of-range lanes and
// subscriptions count as 0).
func (l *Ledger) ReceiveSub(p int, seq uint64, lane, sub int) { l.ReceiveFrom(0, p, seq, lane, sub) }

// maxRemoteSeq bounds another runner's sequence numbers this ledger keeps a bit for (a
// corrupt header must not allocate gigabytes): 2^32 messages per producer and cell.
const maxRemoteSeq = 1 << 32

// ReceiveFrom records one delivery of runner's producer p (runner is ignored unless the
// ledger is shared).
func (l *Ledger) ReceiveFrom(runner, p int, seq uint64, lane, sub int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	remote := false
	if l.runners > 0 {
		if runner < 1 || runner > l.runners || p < 0 || p >= l.per {
			l.countBad()
			return
		}
		remote, p = runner != l.self, (runner-1)*l.per+p
	}
	if p < 0 || p >= len(l.producers) || (!remote && seq >= l.producers[p].issued) || (remote && seq >= maxRemoteSeq) {
		l.countBad()
		return
	}
	pl := &l.producers[p]
	if sub < 0 || sub >= len(pl.subs) {
		sub = 0
	}
	rl := &pl.subs[sub]
	w, bit := int(seq/64), uint64(1)<<(seq%64)
	if l.frozen {
		l.late++
		if !l.sealed && (pl.at(rl.seen, w, ^uint64(0))|pl.at(rl.lateSeen, w, 0))&bit == 0 {
			l.lateFirst++
			pl.set(&rl.lateSeen, w, bit)
		}
		return
	}
	if pl.at(rl.seen, w, ^uint64(0))&bit != 0 {
		rl.dup++
		return
	}
	pl.set(&rl.seen, w, bit)
	rl.unique++
	if pl.at(rl.seen, w, 0) == ^uint64(0) {
		pl.settle(w)
	}
	if lane < 0 || lane >= len(rl.maxSeq) {
		lane = 0
	}
	if seq+1 < rl.maxSeq[lane] {
		rl.reordered++
	} else {
		rl.maxSeq[lane] = seq + 1
	}
}

// countBad counts a receipt of a producer or sequence never issued: unknown before the
// freeze, late after it (the verdict no longer changes).
func (l *Ledger) countBad() {
	if l.frozen {
		l.late++
		return
	}
	l.unknown++
}

// Tally is the ledger's verdict.
type Tally struct {
	Issued uint64 `json:"issued"`
	Failed uint64 `json:"failed"`
	Unique uint64 `json:"unique_received"`
	Lost   uint64 `json:"lost"`
	// Unconfirmed: issued, neither confirmed nor failed, and not received when the ledger
	// froze (the send's outcome was still unknown): not judged lost.
	Unconfirmed uint64 `json:"unconfirmed"`
	// Held: not received when the ledger froze, but first received after it (late: it
	// arrived, whatever its send's outcome), or confirmed and still held by the broker for
	// the run's consumers then (up to the broker's backlog read after the freeze, less what
	// of it arrived late and is held already); taken out of Lost (and Unconfirmed).
	Held       uint64 `json:"held"`
	Duplicated uint64 `json:"duplicated"`
	Reordered  uint64 `json:"reordered"`
	Late       uint64 `json:"late"`
	Unknown    uint64 `json:"unknown"`
	// IssuedAfterClose: sent after the ledger closed (end of the cell's drain), so neither
	// judged received nor lost. Issued + IssuedAfterClose is every message the cell sent,
	// warm-up included.
	IssuedAfterClose uint64 `json:"issued_after_close"`
	// Unconsumed: confirmed messages of a run without consumers (workload.consumers: 0),
	// which nobody was there to receive: not lost, not known to be delivered either.
	Unconsumed uint64 `json:"unconsumed"`
	// Subscriptions: with fan-out (several subscriptions, each owed every message), each
	// one's own unique_received / lost / unconfirmed / duplicated / reordered; the totals
	// above sum them (held is taken from the total only: the broker's backlog is not per
	// subscription).
	Subscriptions []SubTally `json:"subscriptions,omitempty"`
}

// SubTally is one subscription's share of the verdict.
type SubTally struct {
	Unique      uint64 `json:"unique_received"`
	Lost        uint64 `json:"lost"`
	Unconfirmed uint64 `json:"unconfirmed"`
	Held        uint64 `json:"held"` // first received after the freeze (the backlog is not per subscription)
	Duplicated  uint64 `json:"duplicated"`
	Reordered   uint64 `json:"reordered"`
}

// Freeze ends the cell's drain period: later deliveries count as late, not received, and
// sequences issued later are outside the verdict. The returned tally is the verdict now;
// confirmations and failures that arrive later still move sequences out of unconfirmed.
func (l *Ledger) Freeze() Tally {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.freeze()
	return l.tally()
}

func (l *Ledger) freeze() {
	if !l.frozen {
		l.frozen = true
		for i := range l.producers {
			l.producers[i].judged = l.producers[i].issued
		}
	}
}

// Seal ends every change to the ledger's verdict, once the run closed its consumers and
// stopped awaiting acknowledgements: later confirmations and failures are ignored, and a
// later delivery counts only as late. The run judges its thresholds after Seal and writes
// the same tally, so the verdict and summary.json cannot disagree. A ledger not frozen yet
// (a cell the run never finalized) is frozen first.
func (l *Ledger) Seal() {
	l.mu.Lock()
	l.freeze()
	l.sealed = true
	l.mu.Unlock()
}

// Sealed reports whether Seal was called.
func (l *Ledger) Sealed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sealed
}

// Frozen reports whether Freeze was called.
func (l *Ledger) Frozen() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.frozen
}

// Tally counts what is known now. Lost = confirmed but not received; a failed send that
// arrived anyway is received, not failed-and-lost. Before Freeze, Lost is what is still
// owed (in flight); after it, the verdict: receipts as they stood at Freeze, with the
// outcomes of sends known now.
func (l *Ledger) Tally() Tally {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tally()
}

func (l *Ledger) tally() Tally {
	t := Tally{Late: l.late, Unknown: l.unknown, IssuedAfterClose: l.issuedAfter}
	var subs []SubTally
	if len(l.producers) > 0 && len(l.producers[0].subs) > 1 {
		subs = make([]SubTally, len(l.producers[0].subs))
	}
	for i := range l.producers {
		pl := &l.producers[i]
		n := pl.issued
		if l.frozen {
			n = pl.judged
		}
		t.Issued += n
		t.Failed += pl.countFailed(n)
		for j := range pl.subs {
			rl := &pl.subs[j]
			lost, unconf, late := pl.missing(rl, n, !l.noConsumers)
			t.Unique += rl.unique
			t.Duplicated += rl.dup
			t.Reordered += rl.reordered
			t.Lost += lost
			t.Unconfirmed += unconf
			t.Held += late
			if subs != nil {
				subs[j].Unique += rl.unique
				subs[j].Duplicated += rl.dup
				subs[j].Reordered += rl.reordered
				subs[j].Lost += lost
				subs[j].Unconfirmed += unconf
				subs[j].Held += late
			}
		}
	}
	t.Subscriptions = subs
	if l.noConsumers {
		t.Unconsumed, t.Lost = t.Lost, 0
	}
	if l.frozen && l.brokerBacklog >= 0 && subs == nil {
		// Received after the read: in the backlog it counted, and held already.
		inBacklog := uint64(l.brokerBacklog) - min(uint64(l.brokerBacklog), l.lateFirst-l.lateAtBacklog)
		held := min(t.Lost, inBacklog)
		t.Held += held
		t.Lost -= held
	}
	return t
}

// missing splits the sequences below n that rl did not receive and that did not fail into
// first received after the freeze (late: counted only when withLate, a ledger whose
// consumers were there to receive them), confirmed (lost) and not confirmed (unconfirmed).
func (pl *producerLog) missing(rl *recvLog, n uint64, withLate bool) (lost, unconf, late uint64) {
	for w := pl.done; uint64(w)*64 < n; w++ { // the dropped words are settled: none missing
		k := w - pl.done // the word's place in the kept bitsets
		gone := ^word(rl.seen, k) &^ word(pl.failed, k) & mask(w, n)
		if withLate {
			arrived := gone & word(rl.lateSeen, k)
			late += uint64(bits.OnesCount64(arrived))
			gone &^= arrived
		}
		c := word(pl.confirmed, k)
		lost += uint64(bits.OnesCount64(gone & c))
		unconf += uint64(bits.OnesCount64(gone &^ c))
	}
	return lost, unconf, late
}

// word is word w of a bitset (0 beyond its end).
func word(set []uint64, w int) uint64 {
	if w < len(set) {
		return set[w]
	}
	return 0
}

// mask selects the bits of word w that stand for sequences below n.
func mask(w int, n uint64) uint64 {
	if lo := uint64(w) * 64; n-lo < 64 {
		return 1<<(n-lo) - 1
	}
	return ^uint64(0)
}
