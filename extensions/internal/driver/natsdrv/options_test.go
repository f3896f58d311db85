package natsdrv

import (
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The ack keys: defaults by mode, what each value accepts and refuses, and the consumer
// configuration each gives.
func TestAckOptions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		in     Options
		fields []string // the fields Validate names, in order
		policy jetstream.AckPolicy
		wait   time.Duration
	}{
		{name: "default", in: Options{Mode: "jetstream"}, policy: jetstream.AckExplicitPolicy, wait: 30 * time.Second},
		{name: "explicit short wait", in: Options{Mode: "jetstream", Ack: "explicit", AckWait: 2 * time.Second}, policy: jetstream.AckExplicitPolicy, wait: 2 * time.Second},
		{name: "batch", in: Options{Mode: "jetstream", Ack: "batch"}, policy: jetstream.AckAllPolicy, wait: 30 * time.Second},
		{name: "none", in: Options{Mode: "jetstream", Ack: "none"}, policy: jetstream.AckNonePolicy},
		{name: "none with wait", in: Options{Mode: "jetstream", Ack: "none", AckWait: time.Second}, fields: []string{"ack_wait"}},
		{name: "unknown", in: Options{Mode: "jetstream", Ack: "auto"}, fields: []string{"ack"}},
		{name: "wait too short", in: Options{Mode: "jetstream", AckWait: 99 * time.Millisecond}, fields: []string{"ack_wait"}},
		{name: "wait too long", in: Options{Mode: "jetstream", AckWait: time.Hour + 1}, fields: []string{"ack_wait"}},
		{name: "batch keys with explicit", in: Options{Mode: "jetstream", AckBatch: 10, AckInterval: time.Second}, fields: []string{"ack_batch", "ack_interval"}},
		{name: "batch out of range", in: Options{Mode: "jetstream", Ack: "batch", AckBatch: 10001, AckInterval: 11 * time.Second}, fields: []string{"ack_batch", "ack_interval"}},
		{name: "core", in: Options{Mode: "core", Ack: "explicit", AckWait: time.Second}, fields: []string{"ack", "ack_wait"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.in
			o.Defaults()
			var fields []string
			for _, e := range o.Validate() {
				fields = append(fields, e.Field)
			}
			if !slices.Equal(fields, tc.fields) {
				t.Fatalf("problems with %v, want %v", fields, tc.fields)
			}
			if len(tc.fields) > 0 {
				return
			}
			var c jetstream.ConsumerConfig
			ackConfig(&o, &c)
			if c.AckPolicy != tc.policy || c.AckWait != tc.wait {
				t.Errorf("consumer AckPolicy %v AckWait %v, want %v %v", c.AckPolicy, c.AckWait, tc.policy, tc.wait)
			}
			if want := map[bool]int{true: 0, false: -1}[tc.policy == jetstream.AckNonePolicy]; c.MaxAckPending != want {
				t.Errorf("MaxAckPending %d, want %d", c.MaxAckPending, want)
			}
		})
	}
}
