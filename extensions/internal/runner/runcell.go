package runner

import (
	"context"
	"time"
)

// pumpEvery is how often a running cell samples its backlog, steps a backlog cell's phases
// and, with raw samples, hands what was received to the sink; seconds go once a second.
const pumpEvery = 50 * time.Millisecond

// Sink receives what a running cell measured (the k6 module turns it into samples). RunCell
// calls it from one goroutine, in order; slices it hands over are reused after the call.
type Sink interface {
	// Raw is what consumers received and producers had acknowledged since the last call,
	// with the backlog just sampled: every pumpEvery, only when raw samples were asked for.
	Raw(cell int, received []Received, acks Acks, backlog int64)
	// Second is one second of the cell: once a second while it runs, and once more, the
	// last, after its ledger is frozen.
	Second(cell int, a Aggregate)
	// Verdicts follows each running Second: the thresholds' verdicts so far.
	Verdicts()
	// CellEnd ends the cell with its ledger's tally, after its last Second. final says no
	// cell runs after it (the last one, or the run was stopped): verdicts are final ones.
	CellEnd(cell int, t Tally, final bool)
}

// RunCell runs cell's lifecycle, whose k6 scenario started at start: its start and faults,
// then until its drain ends (or a consume-only or closed-loop cell is done) a backlog sample
// every pumpEvery and a Second once a second, then its frozen ledger and last Second. A
// cancelled ctx stops the cell early: it is then interrupted (its tally is what was known)
// and final. It returns once the sink has the cell's end.
func (r *Runner) RunCell(ctx context.Context, cell int, start time.Time, sink Sink) {
	r.startCell(cell)
	r.startFaults(ctx, cell, start)
	end := r.cellEnd(cell, start)
	next := time.Now().Add(time.Second)
	tick := time.NewTicker(pumpEvery)
	defer tick.Stop()
	var recv []Received
	var lat []time.Duration
	interrupted := false
	for stop := false; !stop; {
		select {
		case <-ctx.Done():
			stop, interrupted = true, true
		case now := <-tick.C:
			stop = !now.Before(end) || r.cellDone(cell, now)
		}
		backlog := r.sampleBacklog(cell)
		r.stepDrain(cell, start, backlog)
		if r.raw {
			recv = r.takeReceived(cell, recv)
			acks := r.takeAcks(cell, lat)
			lat = acks.PublishLat
			sink.Raw(cell, recv, acks, backlog)
		}
		if now := time.Now(); !stop && !now.Before(next) {
			sink.Second(cell, r.takeSecond(cell))
			sink.Verdicts()
			next = next.Add(time.Second)
		}
	}
	t := r.finalize(cell, interrupted)
	r.cells[cell].partitions = r.cellPartitions()
	sink.Second(cell, r.takeSecond(cell))
	r.endCell(cell)
	sink.CellEnd(cell, t, interrupted || cell == len(r.cells)-1)
}
