package driver

// Identifier is implemented by drivers that learn, when they connect, which server answered:
// its product and version as the server reports them ("RabbitMQ 3.13.7", "PostgreSQL 15.14",
// "FerretDB v1.24.0 (MongoDB 7.0.77 protocol) on PostgreSQL"). The summary records it
// (broker.server), so a result says what was measured and not only which protocol was
// spoken: a MongoDB-protocol run against FerretDB must never read as MongoDB's figures, and a
// comparison across a broker upgrade shows both versions.
type Identifier interface {
	// Server is what the server said it is; "" when it did not say. It is called once, after
	// Setup, and must not block (drivers read it while connecting).
	Server() string
}
