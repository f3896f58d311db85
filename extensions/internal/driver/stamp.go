package driver

import "encoding/base64"

// The stamp in a header (a scenario's `payload.stamp: header`): mqbench's stamp travels in the
// broker's own message header or property instead of the body's first bytes, so the body the
// broker and any other consumer see is exactly the user's. Drivers stay header-blind: they
// carry Message.Stamp as opaque bytes and hand the runner stamp‖body on receipt.

// StampHeader is the name of the header (Kafka record header, AMQP header table entry, NATS
// header) that carries the stamp.
const StampHeader = "mqbench-stamp"

// StampText encodes a stamp for protocols whose headers are text (NATS): base64, no padding.
func StampText(stamp []byte) string { return base64.RawStdEncoding.EncodeToString(stamp) }

// Restamper joins a received message's stamp and body into the one value the runner's
// Delivery expects, in a buffer it reuses (a Delivery does not retain its value). One per
// consumer goroutine; not safe for concurrent use.
type Restamper struct{ buf, txt []byte }

// Join returns stamp‖body; with no stamp (a message without the header) it returns body as is.
func (r *Restamper) Join(stamp, body []byte) []byte {
	if len(stamp) == 0 {
		return body
	}
	r.buf = append(append(r.buf[:0], stamp...), body...)
	return r.buf
}

// JoinText is Join for a stamp encoded by StampText; a header that does not decode is left
// out (the message is then not mqbench's, and the runner counts it as foreign).
func (r *Restamper) JoinText(stamp string, body []byte) []byte {
	if stamp == "" {
		return body
	}
	r.txt = append(r.txt[:0], stamp...)
	n := base64.RawStdEncoding.DecodedLen(len(r.txt))
	r.buf = append(r.buf[:0], make([]byte, n)...)
	if _, err := base64.RawStdEncoding.Decode(r.buf, r.txt); err != nil {
		return body
	}
	r.buf = append(r.buf[:n], body...)
	return r.buf
}
