package driver

import "context"

// RequestReply is implemented by drivers that can run request-reply on the destination: the
// requesters send on a fixed schedule (open model, never waiting for a reply), responders run
// by mqbench answer every request, and the common code measures the round trip from the send
// time in the payload header to the reply's receipt. Because the responder echoes the body,
// header included, replies are measured and ledgered exactly like deliveries.
//
// A driver's Spec.RequestReply says whether the driver implements it with given options; the
// driver value may implement the interface for every mode and refuse the ones it cannot run.
type RequestReply interface {
	// NewResponder opens responder id: once started it answers every request arriving on
	// the destination with the request's body, unchanged, sent to the request's reply
	// address. Several responders share the requests (a queue group / competing consumers).
	NewResponder(ctx context.Context, id int) (Responder, error)
	// NewRequester opens requester id. Its Send publishes a request carrying this
	// requester's reply address; every reply is handed to deliver (from the requester's own
	// goroutine, receivedAt taken at receipt) — replies are matched by the common code
	// through the echoed header, not by the driver. The returned Ack (when not nil) resolves
	// when the broker took the request (as for Publisher).
	NewRequester(ctx context.Context, id int, deliver Delivery) (Publisher, error)
}

// Responder answers requests until closed.
type Responder interface {
	Start(ctx context.Context) error // returns once it is subscribed
	Close() error
}
