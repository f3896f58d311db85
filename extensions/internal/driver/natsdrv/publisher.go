package natsdrv

import (
	"context"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// corePublisher publishes fire-and-forget on its own connection. NATS has no message key:
// Message.Key is ignored.
type corePublisher struct {
	nc      *nats.Conn
	subject string
	msg     *nats.Msg // reused for messages with a stamp header
}

// Send copies the value into the connection's write buffer and returns; a nil Ack means no
// broker acknowledgement exists in core NATS. While the client is reconnecting, messages go to
// nats.go's reconnect buffer (8 MB); when that is full Send fails with
// nats.ErrReconnectBufExceeded.
func (p *corePublisher) Send(_ context.Context, m driver.Message) (driver.Ack, error) {
	if m.Stamp != nil {
		// Sends are serial and PublishMsg copies before it returns: one message and header serve all.
		if p.msg == nil {
			p.msg = &nats.Msg{Subject: p.subject, Header: nats.Header{driver.StampHeader: {""}}}
		}
		p.msg.Data, p.msg.Header[driver.StampHeader][0] = m.Value, driver.StampText(m.Stamp)
		return nil, p.nc.PublishMsg(p.msg)
	}
	return nil, p.nc.Publish(p.subject, m.Value)
}

// CopiesValue: nats.go copies the payload into its write buffer inside Publish.
func (p *corePublisher) CopiesValue() bool { return true }

var _ driver.ValueCopier = (*corePublisher)(nil)

// Flush writes out the client buffer and waits for the server's PONG, i.e. the server has read
// everything published before.
func (p *corePublisher) Flush(ctx context.Context) error { return flush(ctx, p.nc) }

func (p *corePublisher) Close() error {
	closeConn(p.nc)
	return nil
}

// jsPublisher publishes into a JetStream stream asynchronously; each Send's Ack resolves with
// the stream's PubAck.
//
// The Ack keeps a reference to m.Value until it resolves: if the server answers "no responders"
// (stream leader moving), nats.go resends the same bytes. Callers must not overwrite a value's
// buffer before its Ack resolved.
type jsPublisher struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	subject string
	pubOpts []jetstream.PublishOpt
}

func (p *jsPublisher) Send(_ context.Context, m driver.Message) (driver.Ack, error) {
	msg := &nats.Msg{Subject: p.subject, Data: m.Value}
	if m.Stamp != nil { // kept with the message until acknowledged (nats.go may resend it)
		msg.Header = nats.Header{driver.StampHeader: {driver.StampText(m.Stamp)}}
	}
	f, err := p.js.PublishMsgAsync(msg, p.pubOpts...)
	if err != nil {
		return nil, err
	}
	return jsAck{f}, nil
}

func (p *jsPublisher) Flush(ctx context.Context) error { return flush(ctx, p.nc) }

// Close gives outstanding acknowledgements a moment to arrive, then closes the connection;
// Acks still pending resolve with ErrAsyncPublishTimeout after the ack timeout.
func (p *jsPublisher) Close() error {
	if !p.nc.IsClosed() && p.js.PublishAsyncPending() > 0 {
		t := time.NewTimer(2 * time.Second)
		select {
		case <-p.js.PublishAsyncComplete():
		case <-t.C:
		}
		t.Stop()
	}
	closeConn(p.nc)
	return nil
}

// jsAck waits for one PubAckFuture. The future resolves by itself (with
// jetstream.ErrAsyncPublishTimeout) after the publisher's ack timeout, or with
// nats.ErrDisconnected when the connection drops.
type jsAck struct{ f jetstream.PubAckFuture }

func (a jsAck) Wait(ctx context.Context) error {
	select {
	case <-a.f.Ok():
		return nil
	case err := <-a.f.Err():
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// flush waits for the server to have processed everything sent on nc, bounded by ctx (or
// flushTimeout when ctx has no deadline).
func flush(ctx context.Context, nc *nats.Conn) error {
	if _, ok := ctx.Deadline(); ok {
		return nc.FlushWithContext(ctx)
	}
	return nc.FlushTimeout(flushTimeout)
}

// closeConn pushes out what is buffered (briefly) and closes nc; safe to call twice.
func closeConn(nc *nats.Conn) {
	if nc.IsClosed() {
		return
	}
	if nc.IsConnected() {
		_ = nc.FlushTimeout(2 * time.Second)
	}
	nc.Close()
}
