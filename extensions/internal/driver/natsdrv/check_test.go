package natsdrv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
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

// The scenario that carries such a url is invalid (111), the problem names broker.url and
// not the password.
func TestScenarioWithUnparsableURL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "natsurl.yaml")
	doc := "name: natsurl\nbroker: { type: nats, url: \"nats://user:s3cr3t%zz@127.0.0.1:1\" }\nworkload: { destination: d, duration: 1s }\nmatrix:\n  - { size: 64B, rate: 10 }\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := scenario.Load(path)
	var es *scenario.Errors
	if !errors.As(err, &es) || !strings.Contains(err.Error(), "broker.url: server nats://127.0.0.1:1 has a '%'") || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("Load: %v", err)
	}
}
