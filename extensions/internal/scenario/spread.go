package scenario

// Fan-out and many destinations: `workload.subscriptions` (independent consumer groups, each
// owed every message) and `workload.destinations` (topics / queues / subjects the producers
// and consumers are spread over).

import (
	"fmt"
	"strings"
)

const (
	maxDestinations  = 1000
	maxSubscriptions = 100
)

// DestinationNames are the run's destinations: the one named, or with Destinations > 1
// name-0 … name-(N-1).
func (w Workload) DestinationNames(name string) []string {
	if w.Destinations <= 1 {
		return []string{name}
	}
	out := make([]string, w.Destinations)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", name, i)
	}
	return out
}

func (d *decoder) checkSpread(s *Scenario) {
	w := s.Workload
	canFanOut, known := capable(s.Broker, specFanOut)
	if w.Subscriptions > 1 && !d.reported("workload.subscriptions") {
		const p = "workload.subscriptions"
		switch {
		case w.Pattern == PatternRequestReply:
			d.errorf(p, "does not apply to request-reply (each request is answered once)")
		case w.Consumers < 1:
			d.errorf(p, "needs consumers: workload.consumers is each subscription's number of consumers")
		case known && !canFanOut:
			d.errorf(p, "broker %s, as configured, cannot give the destination independent subscriptions", s.Broker.Type)
		}
	}
	// Consumer i reads destination i mod destinations: more than one per destination share it.
	if sole, _ := capable(s.Broker, specSoleConsumer); sole && w.Consumers > max(w.Destinations, 1) && !d.reported("workload.consumers") {
		d.errorf("workload.consumers", "broker %s, as configured, gives each consumer of a subscription every message, so a subscription takes one consumer (got %d); use workload.subscriptions for fan-out", s.Broker.Type, w.Consumers)
	}
	if w.Destinations > 1 && !d.reported("workload.destinations") {
		const p = "workload.destinations"
		for i, c := range s.Cells {
			if c.Producers < w.Destinations {
				d.errorf(fmt.Sprintf("matrix[%d].producers", i), "%d producers cannot cover %d destinations (producer i sends to destination i mod %d): give at least one per destination", c.Producers, w.Destinations, w.Destinations)
			}
		}
		switch {
		case w.Consumers > 0 && w.Consumers < w.Destinations:
			d.errorf("workload.consumers", "%d consumers cannot cover %d destinations (consumer i reads destination i mod %d): give at least one per destination", w.Consumers, w.Destinations, w.Destinations)
		case w.Pattern == PatternRequestReply:
			d.errorf(p, "does not apply to request-reply yet: requests go to one destination")
		case strings.EqualFold(s.Broker.URL, "embedded"):
			d.errorf(p, "url: embedded starts one in-process server per destination; use a broker for several destinations")
		}
	}
}
