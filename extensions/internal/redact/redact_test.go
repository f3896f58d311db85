package redact

import (
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"nats://127.0.0.1:4222", "nats://127.0.0.1:4222"},
		{"embedded", "embedded"},
		{"amqp://guest:guest@127.0.0.1:5672/", "amqp://127.0.0.1:5672/"},
		{"amqp://user:p@ss:w@rd@host:5672/vhost", "amqp://host:5672/vhost"},
		{"amqp://user:pa/ss?x@host:5672/%2f", "amqp://host:5672/%2f"},
		{"redis://:s3cret@127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"},
		{"nats://a:b@h1:4222,nats://c:d@h2:4222, nats://h3:4222", "nats://h1:4222,nats://h2:4222,nats://h3:4222"},
		{"nats://tok@h1:4222,h2:4222", "nats://h1:4222,h2:4222"},
		{"kafka://127.0.0.1:9092?password=hunter2&tls=true", "kafka://127.0.0.1:9092?password=REDACTED&tls=true"},
		{"redis://h:6379/0?sasl_password=x&Token=y&db=1", "redis://h:6379/0?sasl_password=REDACTED&Token=REDACTED&db=1"},
		{"kafka://h:9092?user=me&pass=a@b", "kafka://h:9092?user=me&pass=REDACTED"},
		{"user:secret@host:1234", "host:1234"},
		{"amqps://u:p@h:5671?cacertfile=/x.pem#frag", "amqps://h:5671?cacertfile=/x.pem#frag"},
	} {
		got := URL(c.in)
		if got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
		for _, secret := range []string{"guest:guest", "p@ss", "s3cret", "hunter2", "pa/ss", "Token=y", "a@b", ":secret"} {
			if strings.Contains(c.in, secret) && strings.Contains(got, secret) {
				t.Errorf("URL(%q) = %q still holds %q", c.in, got, secret)
			}
		}
	}
}

// A client library's error that quotes the URL, or only the password, loses both.
func TestText(t *testing.T) {
	raw := "amqp://bench:S3cr3t!pw@10.0.0.1:5672/"
	msg := `dial amqp://bench:S3cr3t!pw@10.0.0.1:5672/: auth failed for password "S3cr3t!pw"`
	got := Text(msg, raw)
	if strings.Contains(got, "S3cr3t!pw") || !strings.Contains(got, "amqp://10.0.0.1:5672/") {
		t.Errorf("Text = %q", got)
	}
}
