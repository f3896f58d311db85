package amqp10drv

import (
	"strings"
	"testing"

	amqp "github.com/Azure/go-amqp"
)

// TestParseArtemisCount: Artemis's management answer is a JSON array of one number, as an
// AMQP value or a data section; a refusal or anything else is an error naming the answer.
func TestParseArtemisCount(t *testing.T) {
	refused := map[string]any{artemisSucceededHeader: false}
	for _, tc := range []struct {
		name string
		msg  *amqp.Message
		want int64
		err  string
	}{
		{"value", &amqp.Message{Value: "[185474]"}, 185474, ""},
		{"data", &amqp.Message{Data: [][]byte{[]byte("[0]")}}, 0, ""},
		{"refused", &amqp.Message{Value: `["AMQ229017: Queue x does not exist"]`, ApplicationProperties: refused}, 0, "refused: [\"AMQ229017"},
		{"two numbers", &amqp.Message{Value: "[1,2]"}, 0, "want a JSON array of one number"},
		{"negative", &amqp.Message{Value: "[-1]"}, 0, "not a message count"},
		{"not json", &amqp.Message{Value: "12"}, 0, "want a JSON array"},
		{"other body", &amqp.Message{Value: int64(3)}, 0, "unexpected body int64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := parseArtemisCount(tc.msg)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			case n != tc.want:
				t.Fatalf("count %d, want %d", n, tc.want)
			}
		})
	}
}
