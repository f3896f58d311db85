package driver

// Identifier is implemented by drivers that learn, when they connect, which server answered:
// its product and version as the server reports them ("RabbitMQ 3.10.8", "PostgreSQL 15.18
// (Debian 15.18-0+deb12u1)", "FerretDB v1.24.0 (MongoDB 7.0.42 protocol)"). The summary
// records it (broker.server), so a result says what was measured and not only which protocol
// was spoken: a MongoDB-protocol run against FerretDB must never read as MongoDB's figures,
// and a comparison across a broker upgrade shows both versions.
type Identifier interface {
	// Server is what the server said it is; "" when it did not say. It is called once, after
	// Setup, and must not block (drivers read it while connecting).
	Server() string
}
