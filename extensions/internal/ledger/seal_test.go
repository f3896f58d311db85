package ledger

import "testing"

// After the freeze, late answers still move a message (a confirmation: unconfirmed → lost; a
// delivery: lost → held); after Seal nothing changes a verdict count, so a verdict judged
// after Seal and the tally written later are the same.
func TestSealEndsLateChanges(t *testing.T) {
	type counts struct{ lost, unconfirmed, held, failed uint64 }
	for _, c := range []struct {
		name         string
		late         func(l *Ledger) // after the freeze: 0 received, 1 confirmed, 2 unconfirmed
		before, seal counts          // the late event applied before Seal, and after it
	}{
		{"confirmation", func(l *Ledger) { l.Confirmed(0, 2) }, counts{lost: 2}, counts{lost: 1, unconfirmed: 1}},
		{"failure", func(l *Ledger) { l.Failed(0, 2) }, counts{lost: 1, failed: 1}, counts{lost: 1, unconfirmed: 1}},
		{"delivery", func(l *Ledger) { l.Receive(0, 1, 0) }, counts{unconfirmed: 1, held: 1}, counts{lost: 1, unconfirmed: 1}},
		{"confirmation and delivery", func(l *Ledger) { l.Confirmed(0, 2); l.Receive(0, 2, 0) }, counts{lost: 1, held: 1}, counts{lost: 1, unconfirmed: 1}},
	} {
		for _, sealFirst := range []bool{false, true} {
			l := New(1, 1)
			confirm(l, 0)
			confirm(l, 0)
			l.Issue(0) // its confirmation is late
			l.Receive(0, 0, 0)
			l.Freeze()
			if sealFirst {
				l.Seal()
			}
			c.late(l)
			want := c.before
			if sealFirst {
				want = c.seal
			}
			g := l.Tally()
			if got := (counts{g.Lost, g.Unconfirmed, g.Held, g.Failed}); got != want {
				t.Errorf("%s, sealed first %v: %+v; want %+v", c.name, sealFirst, got, want)
			}
			if !sealFirst {
				l.Seal()
				before := l.Tally()
				c.late(l)
				l.Confirmed(0, 2)
				l.Receive(0, 1, 0)
				if after := l.Tally(); after.Lost != before.Lost || after.Held != before.Held || after.Unconfirmed != before.Unconfirmed || after.Failed != before.Failed {
					t.Errorf("%s: sealed tally moved from %+v to %+v", c.name, before, after)
				}
			}
		}
	}
}

// Seal freezes a ledger never frozen: what was issued by then is judged, nothing received
// after counts.
func TestSealFreezes(t *testing.T) {
	l := New(1, 1)
	confirm(l, 0)
	l.Seal()
	if !l.Frozen() || !l.Sealed() {
		t.Fatalf("frozen %v sealed %v; want both", l.Frozen(), l.Sealed())
	}
	l.Receive(0, 0, 0)
	if g := l.Tally(); g.Lost != 1 || g.Unique != 0 || g.Late != 1 {
		t.Errorf("got %+v; want lost 1, late 1", g)
	}
}
