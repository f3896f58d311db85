package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Where the stamp travels when the file does not say: in a header for the user's own bytes (a
// file, a template) on a broker that has one, in the body otherwise (made-up bytes, request-
// reply, brokers without headers); what the file says wins.
func TestStampDefault(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "order.json"), []byte(`{"id": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, broker, workload, want string }{
		{"random on nats", "type: nats", "", StampBody},
		{"file on nats", "type: nats", ", payload: { content: file, file: order.json }", StampHeader},
		{"file on kafka", "type: kafka", ", payload: { content: file, file: order.json }", StampHeader},
		{"template on rabbitmq", "type: rabbitmq", ", payload: { content: template, file: order.json }", StampHeader},
		{"file on redis", "type: redis", ", payload: { content: file, file: order.json }", StampBody},
		{"file, stamp: body", "type: kafka", ", payload: { content: file, file: order.json, stamp: body }", StampBody},
		{"random, stamp: header", "type: nats", ", payload: { stamp: header }", StampHeader},
		{"file in request-reply", "type: nats", ", pattern: request-reply, payload: { content: file, file: order.json }", StampBody},
	} {
		text := strings.Replace(strings.Replace(minimal, "type: nats", tc.broker, 1), "duration: 10s }", "duration: 10s"+tc.workload+" }", 1)
		s, err := Parse(filepath.Join(dir, "t.yaml"), []byte(text))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if s.Workload.Payload.Stamp != tc.want {
			t.Errorf("%s: stamp %s, want %s", tc.name, s.Workload.Payload.Stamp, tc.want)
		}
	}
}
