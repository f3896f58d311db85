package redact

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// URLs Go's url.Parse refuses (a bad %-escape, a trailing '%', a control character in the
// password) still lose their password: the redactor never depends on the URL parsing.
var unparsable = []string{
	"nats://user:s3cr3t%zz@127.0.0.1:1",
	"nats://user:s3cr3t%@127.0.0.1:1",
	"nats://user:s3cr3t\x01@127.0.0.1:1",
}

func TestURLUnparsable(t *testing.T) {
	for _, raw := range unparsable {
		if _, err := url.Parse(raw); err == nil {
			t.Fatalf("%q parses: not a case of this test", raw)
		}
		if got := URL(raw); got != "nats://127.0.0.1:1" {
			t.Errorf("URL(%q) = %q, want nats://127.0.0.1:1", raw, got)
		}
	}
}

// A client's error quotes the URL as Go quotes it (%q: "\x01" spelt out): Text and Secrets
// hide the password in both spellings.
func TestTextUnparsable(t *testing.T) {
	for _, raw := range unparsable {
		_, perr := url.Parse(raw)
		msg := fmt.Sprintf("nats: connect to nats://127.0.0.1:1: %v", perr)
		for name, got := range map[string]string{"Text": Text(msg, raw), "Secrets": Secrets(msg)} {
			if strings.Contains(got, "s3cr3t") || strings.Contains(got, "user") {
				t.Errorf("%s(%q) = %q still holds the credentials", name, msg, got)
			}
			if !strings.Contains(got, "nats://127.0.0.1:1") {
				t.Errorf("%s(%q) = %q lost the address", name, msg, got)
			}
		}
	}
}

// Secrets needs no URL to look for: any scheme://user:password@ in free text loses its user
// info, and secret query values their value.
func TestSecrets(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"dial tcp 127.0.0.1:1: connect: connection refused", "dial tcp 127.0.0.1:1: connect: connection refused"},
		{`parse "amqp://bench:pw@h:5672/": bad`, `parse "amqp://h:5672/": bad`},
		{"nats: no servers available: nats://tok@h1:4222,nats://u:p@h2:4222 (2 tried)", "nats: no servers available: nats://h1:4222,nats://h2:4222 (2 tried)"},
		{"kafka://h:9092?user=me&password=hunter2 failed", "kafka://h:9092?user=me&password=REDACTED failed"},
		{"at postgres://app:p/ss@db:5432/x", "at postgres://db:5432/x"},
	} {
		if got := Secrets(c.in); got != c.want {
			t.Errorf("Secrets(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
