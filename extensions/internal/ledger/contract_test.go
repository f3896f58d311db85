package ledger

import (
	"reflect"
	"testing"
)

// The ledger's contract: what is lost, unconfirmed, failed or held, before and after the
// freeze. One producer, one subscription; every case issues 0..issue-1 before the freeze.
func TestContract(t *testing.T) {
	type events struct {
		confirm, fail, receive []uint64
		issue                  int // more sequences issued (after the freeze: outside the verdict)
	}
	cases := []struct {
		name          string
		issue         int
		before, after events
		between       events // after the freeze, before the backlog is read
		backlog       int64  // the broker's backlog at the freeze (-1: not read)
		want          Tally
	}{
		{name: "nothing confirmed is unconfirmed, not lost", issue: 4,
			before: events{receive: []uint64{0}}, backlog: -1,
			want: Tally{Issued: 4, Unique: 1, Unconfirmed: 3}},
		{name: "confirmed and missing is lost", issue: 4,
			before: events{confirm: []uint64{0, 1, 2}, receive: []uint64{0}}, backlog: -1,
			want: Tally{Issued: 4, Unique: 1, Lost: 2, Unconfirmed: 1}},
		{name: "failure after the freeze moves unconfirmed to failed", issue: 4,
			before: events{receive: []uint64{0, 1}}, after: events{fail: []uint64{2, 3}}, backlog: -1,
			want: Tally{Issued: 4, Failed: 2, Unique: 2}},
		{name: "confirmation after the freeze moves unconfirmed to lost", issue: 3,
			before: events{confirm: []uint64{0}, receive: []uint64{0}}, after: events{confirm: []uint64{1}}, backlog: -1,
			want: Tally{Issued: 3, Unique: 1, Lost: 1, Unconfirmed: 1}},
		{name: "received after the freeze: late and held, not lost", issue: 2,
			before: events{confirm: []uint64{0, 1}}, after: events{receive: []uint64{0, 1}}, backlog: -1,
			want: Tally{Issued: 2, Held: 2, Late: 2}},
		{name: "confirmed after the freeze and received after it: held", issue: 3,
			after: events{confirm: []uint64{0, 1}, receive: []uint64{0, 1}}, backlog: -1,
			want: Tally{Issued: 3, Held: 2, Unconfirmed: 1, Late: 2}},
		{name: "never confirmed but received after the freeze: held (it arrived)", issue: 2,
			after: events{receive: []uint64{1}}, backlog: -1,
			want: Tally{Issued: 2, Held: 1, Unconfirmed: 1, Late: 1}},
		{name: "failed and received after the freeze: failed", issue: 2,
			after: events{fail: []uint64{0}, receive: []uint64{0}}, backlog: -1,
			want: Tally{Issued: 2, Failed: 1, Unconfirmed: 1, Late: 1}},
		{name: "outcomes of sends issued after the freeze stay outside", issue: 2,
			before: events{confirm: []uint64{0, 1}, receive: []uint64{0, 1}},
			after:  events{issue: 3, confirm: []uint64{2}, fail: []uint64{3}}, backlog: -1,
			want: Tally{Issued: 2, Unique: 2, IssuedAfterClose: 3}},
		{name: "held: the broker still has some of the lost", issue: 10,
			before: events{confirm: seq(0, 10), receive: seq(0, 6)}, backlog: 3,
			want: Tally{Issued: 10, Unique: 6, Lost: 1, Held: 3}},
		{name: "held is at most lost", issue: 10,
			before: events{confirm: seq(0, 8), receive: seq(0, 6)}, backlog: 50,
			want: Tally{Issued: 10, Unique: 6, Held: 2, Unconfirmed: 2}},
		{name: "held grows with a confirmation after the freeze", issue: 4,
			before: events{confirm: []uint64{0}, receive: []uint64{0}}, after: events{confirm: []uint64{1, 2}}, backlog: 5,
			want: Tally{Issued: 4, Unique: 1, Held: 2, Unconfirmed: 1}},
		{name: "an empty broker holds nothing", issue: 3,
			before: events{confirm: seq(0, 3), receive: []uint64{0}}, backlog: 0,
			want: Tally{Issued: 3, Unique: 1, Lost: 2}},
		{name: "taken from the broker before it was asked: held, not lost", issue: 10,
			before: events{confirm: seq(0, 10), receive: seq(0, 4)}, between: events{receive: seq(4, 7)}, backlog: 3,
			want: Tally{Issued: 10, Unique: 4, Held: 6, Late: 3}},
		{name: "a late duplicate excuses nothing", issue: 10,
			before: events{confirm: seq(0, 10), receive: seq(0, 4)}, between: events{receive: []uint64{0, 4}}, backlog: 3,
			want: Tally{Issued: 10, Unique: 4, Lost: 2, Held: 4, Late: 2}},
		{name: "late receipts are held without a backlog read", issue: 3,
			before: events{confirm: seq(0, 3)}, between: events{receive: seq(0, 2)}, backlog: -1,
			want: Tally{Issued: 3, Lost: 1, Held: 2, Late: 2}},
		{name: "received after the backlog read: in its count, held once", issue: 10,
			before: events{confirm: seq(0, 10), receive: seq(0, 4)}, after: events{receive: seq(4, 7)}, backlog: 3,
			want: Tally{Issued: 10, Unique: 4, Lost: 3, Held: 3, Late: 3}},
		{name: "a backlog not read holds nothing", issue: 3,
			before: events{confirm: seq(0, 3), receive: []uint64{0}}, backlog: -1,
			want: Tally{Issued: 3, Unique: 1, Lost: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := New(1, 1)
			apply := func(e events) {
				for i := 0; i < e.issue; i++ {
					l.Issue(0)
				}
				for _, s := range e.confirm {
					l.Confirmed(0, s)
				}
				for _, s := range e.fail {
					l.Failed(0, s)
				}
				for _, s := range e.receive {
					l.Receive(0, s, 0)
				}
			}
			apply(events{issue: c.issue})
			apply(c.before)
			l.Freeze()
			apply(c.between)
			l.SetBrokerBacklog(c.backlog)
			apply(c.after)
			if got := l.Tally(); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got  %+v\nwant %+v", got, c.want)
			}
			// Every judged sequence is in exactly one place.
			got := l.Tally()
			if sum := got.Unique + got.Lost + got.Held + got.Unconfirmed + failedMissing(l); sum != got.Issued {
				t.Fatalf("unique+lost+held+unconfirmed+failed-and-missing = %d, issued %d", sum, got.Issued)
			}
		})
	}
}

// failedMissing counts failed sequences of producer 0 that subscription 0 never received.
func failedMissing(l *Ledger) uint64 {
	pl := &l.producers[0]
	var n uint64
	for s := uint64(0); s < pl.judged; s++ {
		if pl.at(pl.failed, int(s/64), 0)&(1<<(s%64)) != 0 && pl.at(pl.subs[0].seen, int(s/64), ^uint64(0))&(1<<(s%64)) == 0 {
			n++
		}
	}
	return n
}

// Before the freeze, lost is what is confirmed and still owed (in flight), and no backlog
// is applied: held only exists in a verdict.
func TestHeldOnlyAfterFreeze(t *testing.T) {
	l := New(1, 1)
	confirm(l, 0)
	l.SetBrokerBacklog(1)
	if got := l.Tally(); got.Lost != 1 || got.Held != 0 {
		t.Fatalf("before freeze: %+v, want lost 1 (owed), held 0", got)
	}
	if got := l.Freeze(); got.Lost != 0 || got.Held != 1 {
		t.Fatalf("after freeze: %+v, want lost 0, held 1", got)
	}
}

// Fan-out: each subscription is owed every message; unconfirmed counts per subscription
// like lost, and a late failure clears it from every one. The broker's backlog is not per
// subscription, so no share of it is held.
func TestContractFanOut(t *testing.T) {
	l := NewFanOut(1, 1, 2)
	for i := 0; i < 4; i++ {
		l.Issue(0)
	}
	l.Confirmed(0, 0)
	l.Confirmed(0, 1)
	l.ReceiveSub(0, 0, 0, 0)
	l.ReceiveSub(0, 1, 0, 0)
	l.ReceiveSub(0, 2, 0, 0) // unconfirmed but arrived at subscription 0
	l.ReceiveSub(0, 0, 0, 1)
	l.Freeze()
	l.SetBrokerBacklog(10)
	want := Tally{Issued: 4, Unique: 4, Lost: 1, Unconfirmed: 3,
		Subscriptions: []SubTally{{Unique: 3, Unconfirmed: 1}, {Unique: 1, Lost: 1, Unconfirmed: 2}}}
	if got := l.Tally(); !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	l.Failed(0, 3) // after the freeze: out of unconfirmed at both
	l.Confirmed(0, 2)
	want = Tally{Issued: 4, Failed: 1, Unique: 4, Lost: 2,
		Subscriptions: []SubTally{{Unique: 3}, {Unique: 1, Lost: 2}}}
	if got := l.Tally(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after late outcomes: got  %+v\nwant %+v", got, want)
	}
	l.ReceiveSub(0, 1, 0, 1) // late at subscription 1: held there, not lost
	want = Tally{Issued: 4, Failed: 1, Unique: 4, Lost: 1, Held: 1, Late: 1,
		Subscriptions: []SubTally{{Unique: 3}, {Unique: 1, Lost: 1, Held: 1}}}
	if got := l.Tally(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a late receipt: got  %+v\nwant %+v", got, want)
	}
}

// The cost the confirmation adds per message (one more lock and bit), and a verdict's cost
// on a million messages (the bitsets are scanned word by word).
func BenchmarkPerMessage(b *testing.B) {
	for _, confirmed := range []bool{false, true} {
		name := "issue+receive"
		if confirmed {
			name = "issue+confirm+receive"
		}
		b.Run(name, func(b *testing.B) {
			l := New(1, 1)
			for i := 0; i < b.N; i++ {
				s := l.Issue(0)
				if confirmed {
					l.Confirmed(0, s)
				}
				l.Receive(0, s, 0)
			}
		})
	}
}

func BenchmarkTallyMillion(b *testing.B) {
	l := New(1, 1)
	for i := 0; i < 1_000_000; i++ {
		s := confirm(l, 0)
		if i%7 != 0 {
			l.Receive(0, s, 0)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if l.Tally().Issued != 1_000_000 {
			b.Fatal("issued")
		}
	}
}
