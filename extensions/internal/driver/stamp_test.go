package driver

import (
	"bytes"
	"testing"
)

// A consumer hands the runner stamp‖body whether the stamp came as bytes (Kafka, AMQP) or as
// text (NATS), the body alone when the message had no stamp header, and reuses its buffer.
func TestRestamperJoins(t *testing.T) {
	stamp := []byte{0, 1, 2, '\r', '\n', 0xff, 'M', 'Q'} // any bytes: a text header must survive CR LF
	body := []byte(`{"order":42}`)
	want := append(append([]byte{}, stamp...), body...)
	var r Restamper
	for _, tc := range []struct {
		name string
		got  func() []byte
		want []byte
	}{
		{"bytes", func() []byte { return r.Join(stamp, body) }, want},
		{"text", func() []byte { return r.JoinText(StampText(stamp), body) }, want},
		{"no stamp", func() []byte { return r.Join(nil, body) }, body},
		{"no text stamp", func() []byte { return r.JoinText("", body) }, body},
		{"text that is not base64", func() []byte { return r.JoinText("%%%", body) }, body},
	} {
		if got := tc.got(); !bytes.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { r.JoinText(StampText(stamp), body) }); allocs > 1 {
		t.Errorf("JoinText allocates %.0f times per message, want at most 1 (StampText's string)", allocs)
	}
}
