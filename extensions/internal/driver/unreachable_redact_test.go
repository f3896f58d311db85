package driver

import (
	"errors"
	"strings"
	"testing"
)

// A client library's error may quote the URL it was given, password included; the message
// that reaches the console and every result file must not.
func TestUnreachableErrorRedacts(t *testing.T) {
	for _, c := range []struct{ name, addr, err string }{
		{"url parse error", "nats://127.0.0.1:1", `parse "nats://user:s3cr3t%zz@127.0.0.1:1": invalid URL escape "%zz"`},
		{"control character, Go-quoted", "nats://127.0.0.1:1", `parse "nats://user:s3cr3t\x01@127.0.0.1:1": net/url: invalid control character in URL`},
		{"several servers", "nats://127.0.0.1:1", "no servers available for connection: nats://user:s3cr3t@h1:1,nats://tok3n@h2:1"},
		{"password in the address", "amqp://user:s3cr3t@127.0.0.1:1", "dial tcp 127.0.0.1:1: connection refused"},
		{"line break", "nats://127.0.0.1:1", "refused\nresult: PASS"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := (&UnreachableError{Broker: "nats", Address: c.addr, Err: errors.New(c.err)}).Error()
			for _, secret := range []string{"s3cr3t", "user", "tok3n", "\n"} {
				if strings.Contains(got, secret) {
					t.Errorf("Error() = %q holds %q", got, secret)
				}
			}
		})
	}
}
