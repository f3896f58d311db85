package scenario

import "fmt"

// Producer-only and consume-only cells inside one run (runner/handoff.go): a cell with
// `consumers: 0` holds the run's consumers back, a later cell with `producers: 0` lets them
// drain what it left.
func (d *decoder) checkHandoff(s *Scenario) {
	held := false
	for i, c := range s.Cells {
		p := fmt.Sprintf("matrix[%d]", i)
		if c.Consumers == 0 && c.Producers > 0 && s.Workload.Consumers > 0 {
			held = true
			switch {
			case c.Backlog > 0:
				d.errorf(p+".consumers", "a producer-only cell holds the consumers back for its whole length; backlog lets them go when it is built: use one or the other")
			case s.Workload.Pattern == PatternRequestReply:
				d.errorf(p+".consumers", "request-reply needs its responders in every cell")
			}
			d.receivedThresholds(c.Thresholds, p+".thresholds", "the cell holds its consumers back (consumers: 0): nothing is received in it, so %s has nothing to judge (a later consume-only cell, producers: 0, receives its messages)")
		}
		if c.Producers != 0 || !d.usable(p+".producers") {
			continue
		}
		for _, k := range []string{"size", "rate", "messages", "batch", "backlog", "inflight"} {
			if d.set(p + "." + k) {
				d.errorf(p+"."+k, "does not apply to a consume-only cell (producers: 0): it sends nothing")
			}
		}
		switch {
		case s.Workload.Consumers < 1:
			d.errorf(p+".producers", "a consume-only cell needs consumers (workload.consumers)")
		case s.Workload.Pattern == PatternRequestReply:
			d.errorf(p+".producers", "request-reply needs requesters in every cell")
		case !held:
			d.errorf(p+".producers", "nothing to consume: a consume-only cell drains what earlier producer-only cells (consumers: 0) left in the destination")
		}
		held = false
	}
}
