package scenario

// consumer_rate (PerfTest's --consumer-rate): each consumer connection takes at most this many
// messages per second, so a run can overload its consumers at a rate chosen in the file rather
// than at whatever this machine's CPU gives out at. The runner paces the deliveries
// (runner/throttle.go); the broker holds the rest, as for any slow consumer.

import "fmt"

// consumerRate returns the cap at path, or def when the file does not set it.
func (d *decoder) consumerRate(path string, v, def int) int {
	if !d.usable(path) {
		return def
	}
	switch {
	case v < 1:
		d.errorf(path, "must be between 1 and %d messages per second per consumer, got %d (leave it out for no cap)", maxRate, v)
	case v > maxRate:
		d.errorf(path, "must be between 1 and %d messages per second per consumer, got %d", maxRate, v)
	}
	return v
}

func (d *decoder) checkConsumerRate(s *Scenario) {
	paths := []string{"workload.consumer_rate"}
	for i := range s.Cells {
		paths = append(paths, fmt.Sprintf("matrix[%d].consumer_rate", i))
	}
	for i, p := range paths {
		if !d.usable(p) {
			continue
		}
		switch {
		case s.Workload.Pattern == PatternRequestReply:
			d.errorf(p, "does not apply to request-reply: its consumers are responders, and a capped responder only delays the round trip")
		case s.Workload.Consumers < 1:
			d.errorf(p, "needs consumers (workload.consumers): it caps how fast each one takes messages")
		case i > 0 && s.Cells[i-1].Consumers == 0:
			d.errorf(p, "does not apply to a producer-only cell (consumers: 0): its consumers take nothing")
		}
	}
}
