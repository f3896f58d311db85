package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// A publish error's text reaches summary.json and summary.txt: whatever credentials the client
// echoed from the broker's URL are gone from it, as written, percent-decoded or quoted.
func TestPublishErrorTextHasNoSecret(t *testing.T) {
	const url = "amqp://mqbench:s3cr%21t-pw@127.0.0.1:5672/"
	r := &Runner{sc: &scenario.Scenario{Broker: scenario.Broker{Type: "rabbitmq", URL: url}}}
	for _, c := range []struct{ name, err, want string }{
		{"the url as given", "dial " + url + ": connection refused", "dial amqp://127.0.0.1:5672/: connection refused"},
		{"the password decoded", `auth failed for "mqbench" with "s3cr!t-pw"`, `auth failed for "mqbench" with "REDACTED"`},
		{"another url with a password", "redirected to amqp://u:other-secret@10.0.0.1/", "redirected to amqp://10.0.0.1/"},
	} {
		got := r.errText(errors.New(c.err))
		if got != c.want || strings.Contains(got, "s3cr") || strings.Contains(got, "other-secret") {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := r.errText(nil); got != "" {
		t.Errorf("no error: %q, want nothing", got)
	}
}
