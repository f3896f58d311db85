package driver

import "context"

// BacklogReader is implemented by drivers that can read, at one instant, what the broker
// still holds for the run's consumers. The runner reconciles a cell's ledger with it when the
// cell's drain ends (held instead of lost), in preference to BrokerStats' Backlog, which may
// be a sample the broker refreshes only every few seconds and so be stale at overload.
type BacklogReader interface {
	// ReadBacklog returns how many messages the broker holds for the run's consumers that no
	// consumer's callback (Delivery) has seen yet: those waiting in the destination, plus
	// those already sent to a consumer and not yet handed to its callback. It must never be
	// below the truth (the runner excuses that many losses, less what arrives after the
	// answer), and may be above it only by messages in flight to the consumers. Unknown (-1)
	// when it cannot be read in this configuration. Safe to call while BrokerStats runs.
	ReadBacklog(ctx context.Context) (int64, error)
}
