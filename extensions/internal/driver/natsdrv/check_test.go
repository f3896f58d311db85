package natsdrv

import (
	"strings"
	"testing"
)

// The client parses each server of the url when it connects, and its parse error quotes the
// url whole, password included: such a url is refused at validate time, without the password.
func TestCheckURLParses(t *testing.T) {
	for _, c := range []struct{ name, url, want string }{
		{"bad escape", "nats://user:s3cr3t%zz@127.0.0.1:1", "'%' not followed by two hex digits"},
		{"trailing percent", "nats://user:s3cr3t%@127.0.0.1:1", "'%' not followed by two hex digits"},
		{"control character", "nats://user:s3cr3t\x01@127.0.0.1:1", "control character"},
		{"second server of a list", "nats://127.0.0.1:4222, nats://user:s3cr3t%zz@127.0.0.1:1", "server 2"},
		{"without a scheme", "user:s3cr3t%zz@127.0.0.1:1", "'%' not followed by two hex digits"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := checkURL(c.url)
			if err == nil {
				t.Fatalf("checkURL(%q) = nil, want an error", c.url)
			}
			if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, "s3cr3t") || strings.Contains(msg, "user") || strings.Contains(msg, "%zz") {
				t.Errorf("checkURL(%q) = %q: want %q and no credentials", c.url, msg, c.want)
			}
		})
	}
	for _, ok := range []string{"embedded", "nats://127.0.0.1:4222", "nats://u:p%25w@h:4222,tls://h2:4443", "127.0.0.1:4222", "nats://tok@h:1"} {
		if err := checkURL(ok); err != nil {
			t.Errorf("checkURL(%q) = %v, want nil", ok, err)
		}
	}
}
