package scenario

// Backlog build-and-drain cells (OMB's consumer backlog test): consumers stop taking messages
// while the producers build a backlog of a stated size, then resume; the cell measures how fast
// the broker drains it and what publishing meets meanwhile.

import "fmt"

func (d *decoder) checkBacklog(s *Scenario) {
	canHold, known := capable(s.Broker, specHolds)
	for i, c := range s.Cells {
		p := fmt.Sprintf("matrix[%d].backlog", i)
		if !d.set(p) || !d.usable(p) {
			continue
		}
		switch {
		case c.Backlog < 1 || c.Backlog > maxMessages:
			d.errorf(p, "must be between 1 and %d messages, got %d", maxMessages, c.Backlog)
		case c.Max:
			d.errorf(p, "applies to a fixed rate: a rate: max producer is paced by acknowledgements, and a backlog is built against a steady publish rate")
		case s.Workload.Pattern == PatternRequestReply:
			d.errorf(p, "does not apply to request-reply (a held-back responder only delays the round trip)")
		case s.Workload.Consumers < 1:
			d.errorf(p, "needs consumers (workload.consumers): they are held back and then drain the backlog")
		case c.Rate > 0 && c.Duration > 0 && float64(c.Rate)*c.Duration.Seconds() < float64(c.Backlog):
			d.errorf(p, "%d messages cannot build up: the cell sends %d/s for %v, %.0f messages in all", c.Backlog, c.Rate, c.Duration, float64(c.Rate)*c.Duration.Seconds())
		case known && !canHold:
			d.errorf(p, "broker %s, as configured, does not keep messages for a consumer that stops reading (it drops them), so no backlog can build: use a queue, a log or a stream (kafka, rabbitmq, amqp10, nats mode: jetstream, redis mode: streams)", s.Broker.Type)
		}
	}
}
