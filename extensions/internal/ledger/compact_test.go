package ledger

import (
	"math/rand"
	"reflect"
	"testing"
)

// An hours-long run's ledger keeps what is in flight, not every message: settled words go.
func TestSettledWordsAreDropped(t *testing.T) {
	const n = 1 << 20
	l := NewFanOut(1, 1, 2)
	for range n {
		s := l.Issue(0)
		l.Confirmed(0, s)
		l.ReceiveSub(0, s, 0, 0)
		l.ReceiveSub(0, s, 0, 1)
	}
	pl := &l.producers[0]
	if kept := len(pl.confirmed) + len(pl.subs[0].seen) + len(pl.subs[1].seen); kept > 3 {
		t.Fatalf("%d words kept for %d settled messages (%d dropped)", kept, n, pl.done)
	}
	want := Tally{Issued: n, Unique: 2 * n, Subscriptions: []SubTally{{Unique: n}, {Unique: n}}}
	if got := l.Freeze(); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	// A receipt of a dropped sequence is still a duplicate; a record still has every bit.
	l2 := New(1, 1)
	for range 256 {
		s := l2.Issue(0)
		l2.Confirmed(0, s)
		l2.Receive(0, s, 0)
	}
	l2.Receive(0, 3, 0)
	l2.Failed(0, 5) // failed after it settled: counted, and in the record
	if got := l2.Tally(); got.Duplicated != 1 || got.Failed != 1 || got.Unique != 256 || got.Lost != 0 {
		t.Fatalf("after settling: %+v", got)
	}
	r := l2.Record(1).Producers[0]
	if popcount(r.Confirmed) != 256 || popcount(r.Subs[0].Seen) != 256 || popcount(r.Failed) != 1 || r.Failed[0] != 1<<5 {
		t.Fatalf("record: confirmed %d, seen %d, failed %v", popcount(r.Confirmed), popcount(r.Subs[0].Seen), r.Failed)
	}
	if l2.producers[0].done != 4 {
		t.Fatalf("%d words dropped, want 4", l2.producers[0].done)
	}
}

// Dropping settled words changes no count: random histories against a per-sequence model.
func TestSettlingKeepsTheVerdict(t *testing.T) {
	for seed := int64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		n := 500 + rng.Intn(3000)
		l, m := New(1, 1), newModel(n)
		q := []float64{0.95, 0.999, 1}[seed%3] // how settled the history is
		var order []uint64
		for range n {
			s := l.Issue(0)
			if rng.Float64() < q {
				l.Confirmed(0, s)
				m.confirmed[s] = true
			}
			if rng.Float64() < (1-q)/2 {
				l.Failed(0, s)
				m.failed[s] = true
			}
			if rng.Float64() < q {
				order = append(order, s)
			}
		}
		for i := range order { // receipts nearly in order, a few duplicated
			if j := i + rng.Intn(3); j < len(order) {
				order[i], order[j] = order[j], order[i]
			}
		}
		cut := len(order) * (80 + rng.Intn(20)) / 100
		receive := func(s uint64) {
			l.Receive(0, s, 0)
			m.receive(s)
			if rng.Float64() < 0.01 {
				l.Receive(0, s, 0)
				m.receive(s)
			}
		}
		for _, s := range order[:cut] {
			receive(s)
		}
		l.Freeze()
		m.frozen = true
		for _, s := range order[cut:] {
			receive(s)
		}
		for range 20 { // late outcomes, some of settled sequences
			s := uint64(rng.Intn(n))
			l.Failed(0, s)
			m.failed[s] = true
		}
		if got, want := l.Tally(), m.tally(); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: got  %+v\nwant %+v", seed, got, want)
		}
		if q == 1 && l.producers[0].done == 0 {
			t.Fatalf("seed %d: a settled history dropped no word", seed)
		}
	}
}

// model is the ledger's contract per sequence, with nothing dropped.
type model struct {
	confirmed, failed, seen, lateSeen []bool
	dup, reordered, late, max         uint64
	frozen                            bool
}

func newModel(n int) *model {
	return &model{confirmed: make([]bool, n), failed: make([]bool, n), seen: make([]bool, n), lateSeen: make([]bool, n)}
}

func (m *model) receive(s uint64) {
	switch {
	case m.frozen:
		m.late++
		if !m.seen[s] {
			m.lateSeen[s] = true
		}
	case m.seen[s]:
		m.dup++
	default:
		m.seen[s] = true
		if s+1 < m.max {
			m.reordered++
		}
		m.max = max(m.max, s+1)
	}
}

func (m *model) tally() Tally {
	t := Tally{Issued: uint64(len(m.seen)), Duplicated: m.dup, Reordered: m.reordered, Late: m.late}
	for s := range m.seen {
		switch {
		case m.failed[s]:
			t.Failed++
			if m.seen[s] {
				t.Unique++
			}
		case m.seen[s]:
			t.Unique++
		case m.lateSeen[s]:
			t.Held++
		case m.confirmed[s]:
			t.Lost++
		default:
			t.Unconfirmed++
		}
	}
	return t
}
