package ledger

import "math/bits"

// A ledger keeps a bit per message and subscription for the whole run: a late receipt of an
// earlier cell's message must still count as held, not lost. Most of those bits settle early
// (confirmed, received by every subscription, never failed), so each producer drops the
// settled words from the front of its bitsets: an hours-long run keeps what is in flight,
// not every message it ever sent. Below done the words read as settled: confirmed and seen
// all ones, failed and lateSeen zero; the verdict, the counts and the records are unchanged.

// at is word w of a producer's bitset, below being what a dropped word reads as.
func (pl *producerLog) at(set []uint64, w int, below uint64) uint64 {
	if w < pl.done {
		return below
	}
	return word(set, w-pl.done)
}

// set ORs bits into word w (w >= done) of one of the producer's bitsets.
func (pl *producerLog) set(set *[]uint64, w int, bits uint64) { orWord(set, w-pl.done, bits) }

// fail records a failed send. Below done (the message was confirmed and received before it
// failed) the word is gone: the rare failure is kept aside so Tally's count stays exact.
func (pl *producerLog) fail(seq uint64) {
	if w := int(seq / 64); w >= pl.done {
		pl.set(&pl.failed, w, 1<<(seq%64))
		return
	}
	if pl.failedBelow == nil {
		pl.failedBelow = map[uint64]struct{}{}
	}
	pl.failedBelow[seq] = struct{}{}
}

// countFailed counts the failed sequences below n.
func (pl *producerLog) countFailed(n uint64) uint64 {
	c := uint64(len(pl.failedBelow)) // all below done*64 <= n
	for k, bs := range pl.failed {
		w := pl.done + k
		if uint64(w)*64 >= n {
			break
		}
		c += uint64(bits.OnesCount64(bs & mask(w, n)))
	}
	return c
}

// settle drops the front words every subscription received in full, all confirmed and none
// failed; called when word w filled up, it does nothing unless w is the first kept word.
func (pl *producerLog) settle(w int) {
	if w != pl.done {
		return
	}
	for uint64(pl.done+1)*64 <= pl.issued && pl.settled() {
		pl.confirmed, pl.failed = dropWord(pl.confirmed), dropWord(pl.failed)
		for j := range pl.subs {
			rl := &pl.subs[j]
			rl.seen, rl.lateSeen = dropWord(rl.seen), dropWord(rl.lateSeen)
		}
		pl.done++
	}
}

// settled reports whether the first kept word is settled in every bitset.
func (pl *producerLog) settled() bool {
	if word(pl.confirmed, 0) != ^uint64(0) || word(pl.failed, 0) != 0 {
		return false
	}
	for j := range pl.subs {
		if word(pl.subs[j].seen, 0) != ^uint64(0) || word(pl.subs[j].lateSeen, 0) != 0 {
			return false
		}
	}
	return true
}

// dropWord removes a bitset's first word (an empty bitset stays empty: its words read 0).
func dropWord(set []uint64) []uint64 {
	if len(set) <= 1 {
		return nil
	}
	return set[1:]
}

// full is a bitset with its dropped words put back (below: what they read as), for a record.
func (pl *producerLog) full(set []uint64, below uint64) Bits {
	out := make(Bits, pl.done+len(set))
	for i := range pl.done {
		out[i] = below
	}
	copy(out[pl.done:], set)
	return out
}
