package amqp10drv

import (
	"strings"
	"testing"

	amqp "github.com/Azure/go-amqp"
)

// TestParseClassicSize: the statistics plugin's answer is a map whose size is the queue's; the
// empty map that ends an answer matching no destination is 0; a map for another destination,
// a size that is not a count, or another body is an error naming what came.
func TestParseClassicSize(t *testing.T) {
	const q = "queue://bench"
	stats := func(name string, size any) *amqp.Message {
		return &amqp.Message{Value: map[string]any{"destinationName": name, "size": size, "inflightCount": int64(7)}}
	}
	for _, tc := range []struct {
		name string
		msg  *amqp.Message
		want int64
		err  string
	}{
		{"size", stats(q, int64(185474)), 185474, ""},
		{"int32 size", stats(q, int32(12)), 12, ""},
		{"no such destination", &amqp.Message{Value: map[any]any{}}, 0, ""},
		{"other destination", stats("queue://bench2", int64(3)), 0, `for "queue://bench2", asked for "queue://bench"`},
		{"negative", stats(q, int64(-1)), 0, "size -1"},
		{"size not a number", stats(q, "12"), 0, "size is string"},
		{"no size", &amqp.Message{Value: map[string]any{"destinationName": q}}, 0, "size is <nil>"},
		{"text body", &amqp.Message{Value: "12"}, 0, "unexpected body string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := parseClassicSize(tc.msg, q)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			case n != tc.want:
				t.Fatalf("size %d, want %d", n, tc.want)
			}
		})
	}
}
