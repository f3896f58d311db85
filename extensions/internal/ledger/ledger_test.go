package ledger

import (
	"math/bits"
	"reflect"
	"sync"
	"testing"
)

func TestTally(t *testing.T) {
	cases := []struct {
		name     string
		issue    int
		failed   []uint64
		pending  []uint64 // neither confirmed nor failed (every other issued sequence is confirmed)
		received []uint64
		want     Tally
	}{
		{"all in order", 5, nil, nil, []uint64{0, 1, 2, 3, 4}, Tally{Issued: 5, Unique: 5}},
		{"one lost", 5, nil, nil, []uint64{0, 1, 3, 4}, Tally{Issued: 5, Unique: 4, Lost: 1}},
		{"duplicate", 3, nil, nil, []uint64{0, 1, 1, 2}, Tally{Issued: 3, Unique: 3, Duplicated: 1}},
		{"reordered", 4, nil, nil, []uint64{0, 2, 1, 3}, Tally{Issued: 4, Unique: 4, Reordered: 1}},
		{"failed not lost", 3, []uint64{1}, nil, []uint64{0, 2}, Tally{Issued: 3, Failed: 1, Unique: 2}},
		{"failed but arrived", 3, []uint64{1}, nil, []uint64{0, 1, 2}, Tally{Issued: 3, Failed: 1, Unique: 3}},
		{"failed twice counts once", 3, []uint64{1, 1}, nil, []uint64{0, 2}, Tally{Issued: 3, Failed: 1, Unique: 2}},
		{"never issued", 2, nil, nil, []uint64{0, 1, 7}, Tally{Issued: 2, Unique: 2, Unknown: 1}},
		{"beyond one word", 200, nil, nil, seq(0, 200), Tally{Issued: 200, Unique: 200}},
		{"unconfirmed not lost", 5, nil, []uint64{3, 4}, []uint64{0, 1}, Tally{Issued: 5, Unique: 2, Lost: 1, Unconfirmed: 2}},
		{"unconfirmed but arrived", 3, nil, []uint64{2}, []uint64{0, 1, 2}, Tally{Issued: 3, Unique: 3}},
		{"failed wins over confirmed", 2, []uint64{1}, nil, []uint64{0}, Tally{Issued: 2, Failed: 1, Unique: 1}},
		{"unconfirmed across words", 130, nil, seq(60, 130), seq(0, 50), Tally{Issued: 130, Unique: 50, Lost: 10, Unconfirmed: 70}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := New(1, 1)
			for i := 0; i < c.issue; i++ {
				if s := l.Issue(0); !contains(c.pending, s) {
					l.Confirmed(0, s)
				}
			}
			for _, s := range c.failed {
				l.Failed(0, s)
			}
			for _, s := range c.received {
				l.Receive(0, s, 0)
			}
			if got := l.Freeze(); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			if n := popcount(l.Record(0).Producers[0].Subs[0].Seen); n != c.want.Unique {
				t.Fatalf("bitset has %d bits, want %d", n, c.want.Unique)
			}
		})
	}
}

func TestLateAfterFreeze(t *testing.T) {
	l := New(1, 1)
	confirm(l, 0)
	confirm(l, 0)
	l.Receive(0, 0, 0)
	if got := l.Freeze(); got.Lost != 1 {
		t.Fatalf("lost = %d, want 1", got.Lost)
	}
	l.Receive(0, 1, 0)
	l.Receive(0, 1, 0) // twice late: counted late twice, held once
	if got := l.Tally(); got.Late != 2 || got.Lost != 0 || got.Held != 1 || got.Unique != 1 {
		t.Fatalf("after freeze: %+v, want late 2, held 1, lost 0", got)
	}
}

// A ledger without consumers (a producer-only cell) does not take another cell's late
// receipts of its messages as its own deliveries: they stay unconsumed.
func TestLateWithoutConsumersStaysUnconsumed(t *testing.T) {
	l := NewFanOut(1, 0, 1)
	confirm(l, 0)
	confirm(l, 0)
	l.Freeze()
	l.Receive(0, 0, 0)
	if got := l.Tally(); got.Unconsumed != 2 || got.Held != 0 || got.Lost != 0 || got.Late != 1 {
		t.Fatalf("got %+v, want unconsumed 2, late 1, held 0", got)
	}
}

// Many producers and consumers at once: the counts must still add up (run with -race).
func TestConcurrent(t *testing.T) {
	const producers, perProducer = 8, 5000
	l := New(producers, 1)
	var wg sync.WaitGroup
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := 0; i < perProducer; i++ {
				s := confirm(l, p)
				l.Receive(p, s, 0)
				if i%1000 == 0 {
					l.Receive(p, s, 0) // one duplicate per thousand
				}
			}
		}(p)
	}
	wg.Wait()
	got := l.Freeze()
	want := Tally{Issued: producers * perProducer, Unique: producers * perProducer, Duplicated: producers * perProducer / 1000}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

// confirm issues the next sequence of producer p and confirms it (the broker acknowledged it).
func confirm(l *Ledger, p int) uint64 {
	s := l.Issue(p)
	l.Confirmed(p, s)
	return s
}

func contains(list []uint64, v uint64) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func seq(from, to uint64) []uint64 {
	var s []uint64
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

// Two consumers sharing a queue each see an ordered subsequence; interleaved, that is no
// reordering. Within one lane, a step back is.
func TestReorderIsPerLane(t *testing.T) {
	l := New(1, 2)
	for i := 0; i < 6; i++ {
		l.Issue(0)
	}
	for _, d := range []struct {
		seq  uint64
		lane int
	}{{1, 1}, {0, 0}, {3, 1}, {2, 0}, {5, 0}, {4, 0}} {
		l.Receive(0, d.seq, d.lane)
	}
	if got := l.Freeze(); got.Reordered != 1 || got.Unique != 6 {
		t.Fatalf("got %+v, want exactly one reorder (4 after 5 on lane 0)", got)
	}
}

// popcount counts the bits set, to cross-check the ledger's bitset.
func popcount(words []uint64) (n uint64) {
	for _, w := range words {
		n += uint64(bits.OnesCount64(w))
	}
	return n
}

// Sends after the ledger closed (an overloaded generator still sending when the drain
// ended) stay in the accounting: Issued + IssuedAfterClose is every sequence handed out,
// and they are neither lost nor received.
func TestSendsAfterCloseAreAccounted(t *testing.T) {
	l := New(1, 1)
	for i := 0; i < 10; i++ {
		l.Receive(0, confirm(l, 0), 0)
	}
	confirm(l, 0) // acknowledged, in flight at the close: lost
	l.Freeze()
	for i := 0; i < 5; i++ {
		l.Receive(0, confirm(l, 0), 0) // after close: late, not received
	}
	got := l.Tally()
	if got.Issued != 11 || got.IssuedAfterClose != 5 || got.Unique != 10 || got.Lost != 1 || got.Late != 5 {
		t.Errorf("tally %+v, want issued 11, after close 5, unique 10, lost 1, late 5", got)
	}
}

// Fan-out: every subscription is owed every message; each one's losses and duplicates are
// its own, and the totals sum them.
func TestSubscriptions(t *testing.T) {
	l := NewFanOut(1, 1, 3)
	for i := 0; i < 10; i++ {
		confirm(l, 0)
	}
	for seq := uint64(0); seq < 10; seq++ {
		l.ReceiveSub(0, seq, 0, 0) // subscription 0: everything
		if seq != 4 {
			l.ReceiveSub(0, seq, 0, 1) // subscription 1: all but seq 4
		}
	}
	l.ReceiveSub(0, 2, 0, 1) // and seq 2 twice
	got := l.Freeze()        // subscription 2 received nothing
	want := []SubTally{{Unique: 10}, {Unique: 9, Lost: 1, Duplicated: 1}, {Lost: 10}}
	if !reflect.DeepEqual(got.Subscriptions, want) || got.Lost != 11 || got.Unique != 19 || got.Duplicated != 1 {
		t.Fatalf("got %+v", got)
	}
}

// A run without consumers cannot tell lost from delivered: what nobody was there to receive
// is unconsumed.
func TestNoConsumers(t *testing.T) {
	l := New(2, 0)
	for i := 0; i < 5; i++ {
		confirm(l, i%2)
	}
	l.Failed(1, 0)
	if got := l.Freeze(); got.Lost != 0 || got.Unconsumed != 4 || got.Issued != 5 || got.Failed != 1 {
		t.Fatalf("got %+v", got)
	}
}
