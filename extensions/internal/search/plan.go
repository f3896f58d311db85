// Package search runs a capacity search (`k6 x mqbench search`): per cell, the highest fixed
// rate at which every threshold holds, no iteration is dropped and the backlog does not grow,
// found as OpenMessaging Benchmark finds its "maximum sustainable rate": one k6 run per step
// (k6 fixes every arrival rate before a run), doubling from the cell's rate until a step fails
// or the upper bound holds, then bisecting between the last pass and the first failure, then a
// confirming run at the rate found. Its results are search.json (Result), search.txt and
// search.html beside a steps/ folder holding every step's own results.
package search

// Planner chooses the rates of one cell's search from the verdicts so far. It is pure (no k6
// run), so the sequence of rates is tested on its own.
type Planner struct {
	Start, Max int     // the cell's rate and search.max_rate
	Precision  float64 // stop when (fail - pass) / pass < Precision
	pass, fail int     // highest passing rate below the lowest failing one, and that one; 0: none
	passes     []int   // every rate that held
}

// Floor is the lowest rate a search whose start failed tries before it gives up: 1/16 of the
// start (the start halved four times).
func (p *Planner) Floor() int { return max(1, p.Start/16) }

// Next returns the next rate to try, or 0 when the search is over (then Found is its result).
func (p *Planner) Next() int {
	switch {
	case p.pass == 0 && p.fail == 0:
		return p.Start
	case p.fail == 0: // every step so far held: double, up to the bound
		if p.pass >= p.Max {
			return 0
		}
		return min(p.pass*2, p.Max)
	case p.pass == 0: // even the start failed: halve toward Floor
		next := p.fail / 2
		if next < p.Floor() || next < 1 {
			return 0
		}
		return next
	}
	if p.fail-p.pass <= 1 || float64(p.fail-p.pass)/float64(p.pass) < p.Precision {
		return 0
	}
	return p.pass + (p.fail-p.pass)/2
}

// Record takes a step's verdict. A failure at or below a rate that held before (a confirming
// run that did not hold what its step did, or noise) wins: the search goes on below it.
func (p *Planner) Record(rate int, ok bool) {
	if ok {
		p.passes = append(p.passes, rate)
	} else if p.fail == 0 || rate < p.fail {
		p.fail = rate
	}
	p.pass = 0
	for _, r := range p.passes {
		if r > p.pass && (p.fail == 0 || r < p.fail) {
			p.pass = r
		}
	}
}

// Found is the highest rate that held, 0 when none did.
func (p *Planner) Found() int { return p.pass }

// FirstFail is the lowest rate that failed, 0 when none did.
func (p *Planner) FirstFail() int { return p.fail }
