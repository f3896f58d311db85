package driver

import (
	"strings"
	"testing"
)

func TestCheckURLs(t *testing.T) {
	for _, c := range []struct {
		url, err string // err: "" for fine, else a part of the message
	}{
		{"nats://127.0.0.1:4222", ""},
		{"nats://u:p@h1:4222,nats://h2:4223", ""},
		{"127.0.0.1:4222", ""},
		{"tls://[::1]:4222", ""},
		{"h1", ""},
		{"nats://127.0.0.1:notaport", `port "notaport" must be a number`},
		{"nats://127.0.0.1:70000", `port "70000" must be a number`},
		{"http://127.0.0.1:4222", `url scheme "http" is not supported (valid: nats, tls)`},
		{"nats://:4222", "has no host"},
		{"nats://h1:4222,,nats://h2:4222", "empty server"},
		{"nats://user:s3cret@h1:bad", `port "bad"`},
	} {
		err := CheckURLs(c.url, "nats", "tls")
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.url, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: got %v, want %q", c.url, err, c.err)
		case err != nil && strings.Contains(err.Error(), "s3cret"):
			t.Errorf("%s: message leaks the password: %v", c.url, err)
		}
	}
}
