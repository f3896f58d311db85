package sqsdrv

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

func TestChecks(t *testing.T) {
	for u, want := range map[string]string{
		"sqs://127.0.0.1:9424":          "http://127.0.0.1:9424",
		"sqs://localhost":               "http://localhost",
		"SQS://[::1]:9324/":             "http://[::1]:9324",
		"sqs+https://sqs.example:8443":  "https://sqs.example:8443",
		"sqs://":                        "",
		" sqs:// ":                      "",
		"sqs+https://vpce.example.test": "https://vpce.example.test",
	} {
		ep, err := parseURL(u)
		if err != nil || ep.url != want {
			t.Errorf("parseURL(%q) = %q, %v; want %q", u, ep.url, err, want)
		}
	}
	for _, u := range []string{"127.0.0.1:9424", "http://127.0.0.1:9424", "sqs://127.0.0.1:9424/000000000000/q",
		"sqs://key:secret@127.0.0.1:9424", "sqs://127.0.0.1:99999", "sqs+https://", "sqs://h?region=x"} {
		err := checkURL(u)
		if err == nil {
			t.Errorf("checkURL(%q) accepted", u)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("checkURL(%q): message leaks the secret: %v", u, err)
		}
	}
	std, fifo := &Options{}, &Options{FIFO: true}
	for _, n := range []string{"a", "bench-latency", "A_b-1", strings.Repeat("x", 80)} {
		if err := checkQueue(n, std); err != nil {
			t.Errorf("checkQueue(%q): %v", n, err)
		}
	}
	if err := checkQueue(strings.Repeat("x", 75)+".fifo", fifo); err != nil {
		t.Errorf("80-character FIFO name: %v", err)
	}
	for _, c := range []struct {
		name string
		o    *Options
	}{{"", std}, {"a.b", std}, {"a b", std}, {strings.Repeat("x", 81), std}, {"q.fifo", std}, {"q", fifo}, {strings.Repeat("x", 76) + ".fifo", fifo}} {
		if err := checkQueue(c.name, c.o); err == nil {
			t.Errorf("checkQueue(%q, fifo %v) accepted", c.name, c.o.FIFO)
		}
	}
	for _, c := range []struct{ dest, run string }{{"q", "r1"}, {"q.fifo", "run/1"}, {strings.Repeat("x", 80), "r"}, {strings.Repeat("x", 75) + ".fifo", strings.Repeat("r", 90)}} {
		n := runQueueName(c.dest, c.run)
		o := std
		if strings.HasSuffix(c.dest, ".fifo") {
			o = fifo
		}
		if err := checkQueue(n, o); err != nil || n == c.dest {
			t.Errorf("runQueueName(%q, %q) = %q: %v", c.dest, c.run, n, err)
		}
	}
}

func TestOptions(t *testing.T) {
	o := &Options{FIFO: true}
	o.Defaults()
	if o.SendConcurrency != 1 || o.Receivers != 1 || o.SendBatch != 1 || o.ReceiveBatch != 10 || *o.WaitTimeSeconds != 20 || *o.VisibilityTimeout != 30 || o.MaxMessageBytes != 262144 {
		t.Errorf("FIFO defaults: %+v", o)
	}
	if n, opt := maxPayload(o); n != 196608 || opt != "max_message_bytes" {
		t.Errorf("MaxPayload = %d, %s", n, opt)
	}
	bad := &Options{Region: "Not A Region", MessageGroupID: "g", SendBatch: 11, BatchLinger: -1, SendConcurrency: 65,
		ReceiveBatch: 11, Receivers: 33, WaitTimeSeconds: intp(21), VisibilityTimeout: intp(-1), DeleteDelay: -1, MaxMessageBytes: 100}
	if errs := bad.Validate(); len(errs) != 11 {
		t.Errorf("Validate: %d errors, want 11: %v", len(errs), errs)
	}
	f := &Options{FIFO: true, SendConcurrency: 4, MessageGroupID: "bad group"}
	f.Defaults()
	if errs := f.Validate(); len(errs) != 2 {
		t.Errorf("FIFO Validate: %v, want send_concurrency and message_group_id", errs)
	}
}

// TestCredentials: the environment's keys are used; none is an error for AWS or a remote
// endpoint (113-class: a plain error, not an unreachable one), and dummy keys only for a
// loopback endpoint.
func TestCredentials(t *testing.T) {
	t.Setenv(envKeyID, "")
	t.Setenv(envSecret, "")
	t.Setenv(envSession, "")
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	for _, u := range []string{"sqs://", "sqs+https://sqs.example:443", "sqs://10.1.2.3:9324"} {
		o := &Options{Region: "eu-west-1"}
		_, err := Open(context.Background(), driver.Config{URL: u, Destination: "q", Options: o})
		var ue *driver.UnreachableError
		if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), envKeyID) {
			t.Errorf("Open(%s) without credentials: %v; want a plain error naming %s", u, err, envKeyID)
		}
	}
	if _, err := Open(context.Background(), driver.Config{URL: "sqs://", Destination: "q"}); err == nil || !strings.Contains(err.Error(), "region") {
		t.Errorf("Open(sqs://) without a region: %v", err)
	}
	p, from, err := envCredentials(endpoint{url: "http://127.0.0.1:1", host: "127.0.0.1:1"})
	if err != nil || !strings.Contains(from, "dummy") {
		t.Fatalf("loopback without credentials: %q, %v", from, err)
	}
	if c, _ := p.Retrieve(context.Background()); c.AccessKeyID != dummyKey {
		t.Errorf("loopback key %q", c.AccessKeyID)
	}
	t.Setenv(envKeyID, "AKIDEXAMPLE")
	if _, _, err := envCredentials(endpoint{}); err == nil {
		t.Error("a key id without a secret accepted")
	}
	t.Setenv(envSecret, "s3cr3t")
	t.Setenv(envSession, "tok")
	p, _, err = envCredentials(endpoint{})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := p.Retrieve(context.Background()); c.AccessKeyID != "AKIDEXAMPLE" || c.SecretAccessKey != "s3cr3t" || c.SessionToken != "tok" {
		t.Errorf("environment credentials: %+v", c)
	}
}
