package ledger

import (
	"encoding/json"
	"testing"
	"time"
)

// shared is runner self of runners, with per producers, lanes lanes and subs subscriptions.
func shared(runners, self, per, lanes, subs int) *Ledger {
	l := NewFanOut(per, lanes, subs)
	l.SetShared(runners, self)
	return l
}

// send issues n sequences on runner-local producer p, all confirmed.
func send(l *Ledger, p, n int) {
	for range n {
		l.Confirmed(p, l.Issue(p))
	}
}

// Runners 1 and 2 produce, 3 (and in some cases 2) consume; every case goes through JSON, as
// the shards do.
func TestMergeShared(t *testing.T) {
	cases := []struct {
		name string
		subs int
		// play drives the three runners' ledgers (already issued: 10 per producer of 1 and 2)
		play func(l1, l2, l3 *Ledger)
		want Tally
	}{
		{"all received once", 1, func(_, _, l3 *Ledger) {
			for r := 1; r <= 2; r++ {
				for s := range uint64(10) {
					l3.ReceiveFrom(r, 0, s, 0, 0)
				}
			}
		}, Tally{Issued: 20, Unique: 20}},
		{"three lost, of both producers", 1, func(_, _, l3 *Ledger) {
			for s := range uint64(10) {
				if s != 4 {
					l3.ReceiveFrom(1, 0, s, 0, 0)
				}
				if s < 8 {
					l3.ReceiveFrom(2, 0, s, 0, 0)
				}
			}
		}, Tally{Issued: 20, Unique: 17, Lost: 3}},
		{"one message at two consumer runners: a duplicate", 1, func(_, l2, l3 *Ledger) {
			for r := 1; r <= 2; r++ {
				for s := range uint64(10) {
					l3.ReceiveFrom(r, 0, s, 0, 0)
				}
			}
			l2.ReceiveFrom(1, 0, 3, 0, 0)
		}, Tally{Issued: 20, Unique: 20, Duplicated: 1}},
		{"reordered on one lane", 1, func(_, _, l3 *Ledger) {
			for _, s := range []uint64{0, 2, 1, 3, 4, 5, 6, 7, 8, 9} {
				l3.ReceiveFrom(1, 0, s, 0, 0)
				l3.ReceiveFrom(2, 0, s, 1, 0)
			}
		}, Tally{Issued: 20, Unique: 20, Reordered: 2}},
		{"beyond the producer's close: late; never issued: unknown", 1, func(l1, _, l3 *Ledger) {
			for s := range uint64(10) {
				l3.ReceiveFrom(1, 0, s, 0, 0)
				l3.ReceiveFrom(2, 0, s, 0, 0)
			}
			l1.Freeze()
			l1.Issue(0)                     // seq 10, after runner 1's close
			l3.ReceiveFrom(1, 0, 10, 0, 0)  // received before runner 3 froze
			l3.ReceiveFrom(2, 0, 500, 0, 0) // runner 2 never issued 500
			l3.ReceiveFrom(4, 0, 1, 0, 0)   // there is no runner 4
		}, Tally{Issued: 20, Unique: 20, Late: 1, Unknown: 2, IssuedAfterClose: 1}},
		{"received late by one runner, in time by another: received", 1, func(_, l2, l3 *Ledger) {
			l2.ReceiveFrom(1, 0, 4, 0, 0)
			for r := 1; r <= 2; r++ {
				for s := range uint64(10) {
					if r != 1 || s != 4 {
						l3.ReceiveFrom(r, 0, s, 0, 0)
					}
				}
			}
			l3.Freeze()
			l3.ReceiveFrom(1, 0, 4, 0, 0)
		}, Tally{Issued: 20, Unique: 20, Late: 1}},
		{"received late only: held, not lost", 1, func(_, _, l3 *Ledger) {
			for r := 1; r <= 2; r++ {
				for s := range uint64(10) {
					if s != 4 {
						l3.ReceiveFrom(r, 0, s, 0, 0)
					}
				}
			}
			l3.Freeze()
			l3.ReceiveFrom(1, 0, 4, 0, 0)
		}, Tally{Issued: 20, Unique: 18, Lost: 1, Held: 1, Late: 1}},
		{"a failed send never received is failed, not lost", 1, func(l1, _, l3 *Ledger) {
			seq := l1.Issue(0)
			l1.Failed(0, seq)
			for r := 1; r <= 2; r++ {
				for s := range uint64(10) {
					l3.ReceiveFrom(r, 0, s, 0, 0)
				}
			}
			l3.ReceiveFrom(1, 0, 99, 0, 0) // beyond what runner 1 issued
		}, Tally{Issued: 21, Failed: 1, Unique: 20, Unknown: 1}},
		{"fan-out: each subscription owed every message", 2, func(_, l2, l3 *Ledger) {
			for r := 1; r <= 2; r++ {
				for s := range uint64(10) {
					l3.ReceiveFrom(r, 0, s, 0, 0)
					if s != 0 {
						l2.ReceiveFrom(r, 0, s, 1, 1) // subscription 1 on runner 2 misses seq 0 of both
					}
				}
			}
		}, Tally{Issued: 20, Unique: 38, Lost: 2, Subscriptions: []SubTally{{Unique: 20}, {Unique: 18, Lost: 2}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l1, l2, l3 := shared(3, 1, 1, 2, c.subs), shared(3, 2, 1, 2, c.subs), shared(3, 3, 1, 2, c.subs)
			send(l1, 0, 10)
			send(l2, 0, 10)
			c.play(l1, l2, l3)
			var recs []Record
			for i, l := range []*Ledger{l1, l2, l3} {
				l.Freeze()
				b, err := json.Marshal(l.Record(i + 1))
				if err != nil {
					t.Fatal(err)
				}
				var r Record
				if err := json.Unmarshal(b, &r); err != nil {
					t.Fatal(err)
				}
				recs = append(recs, r)
			}
			got, err := Merge(recs)
			if err != nil {
				t.Fatal(err)
			}
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(c.want)
			if string(gb) != string(wb) {
				t.Errorf("got  %s\nwant %s", gb, wb)
			}
		})
	}
}

// Records that cannot make one ledger are refused.
func TestMergeRefuses(t *testing.T) {
	a, b := shared(2, 1, 1, 1, 1), shared(2, 2, 2, 1, 1)
	if _, err := Merge([]Record{a.Record(1), b.Record(2)}); err == nil {
		t.Error("different producer counts merged")
	}
	c, d := shared(2, 1, 1, 1, 1), shared(2, 1, 1, 1, 1) // both claim runner 1's producer
	send(c, 0, 1)
	send(d, 0, 1)
	if _, err := Merge([]Record{c.Record(1), d.Record(2)}); err == nil {
		t.Error("a producer issued by two runners merged")
	}
	e := NewFanOut(0, 1, 1) // a consume-only cell has no producer
	e.SetShared(2, 1)
	if tl, err := Merge([]Record{e.Record(1), e.Record(2)}); err != nil || tl.Issued != 0 {
		t.Errorf("a cell without producers: %+v, %v", tl, err)
	}
	if _, err := Merge(nil); err == nil {
		t.Error("nothing merged")
	}
	// A shard from elsewhere claiming 2^63 sequences kept the merge looping for hours over
	// bits it does not have; a judged count beyond the issued one is no ledger either.
	for _, pr := range []ProducerRecord{{Issued: 1 << 63, Judged: 1 << 63}, {Issued: MaxSequences + 1}, {Issued: 10, Judged: 11}} {
		f := shared(1, 1, 1, 1, 1)
		r := f.Record(1)
		subs := r.Producers[0].Subs
		r.Producers[0] = pr
		r.Producers[0].Subs = subs
		start := time.Now()
		if _, err := Merge([]Record{r}); err == nil || time.Since(start) > time.Second {
			t.Errorf("issued %d judged %d: %v after %v; want refused at once", pr.Issued, pr.Judged, err, time.Since(start))
		}
	}
}
