package driver

import "context"

// Identifier is implemented by drivers that learn, when they connect, which server answered:
// its product and version as the server reports them ("RabbitMQ 3.10.8", "PostgreSQL 15.18
// (Debian 15.18-0+deb12u1)", "FerretDB v1.24.0 (MongoDB 7.0.42 protocol)"). The summary
// records it (broker.server), so a result says what was measured and not only which protocol
// was spoken: a MongoDB-protocol run against FerretDB must never read as MongoDB's figures,
// and a comparison across a broker upgrade shows both versions.
type Identifier interface {
	// Server is what the server said it is; "" when it did not say or the question failed
	// (the name is for the results, not worth a failed run). The runner calls it once, on the
	// first destination's driver after Setup, so a driver that must ask (one round trip,
	// bounded) asks here rather than in every Open.
	Server(ctx context.Context) string
}
