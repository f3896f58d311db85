package driver

import "testing"

func TestSubscriptionName(t *testing.T) {
	for _, c := range []struct {
		base, sep string
		sub       int
		want      string
	}{
		{"mqbench-r1", "-", 0, "mqbench-r1"},
		{"mqbench-r1", "-", 1, "mqbench-r1-s1"},
		{"mqbench-r1", "-", 12, "mqbench-r1-s12"},
		{"orders", ".", 0, "orders"},
		{"orders", ".", 2, "orders.s2"},
	} {
		if got := SubscriptionName(c.base, c.sep, c.sub); got != c.want {
			t.Errorf("SubscriptionName(%q, %q, %d) = %q, want %q", c.base, c.sep, c.sub, got, c.want)
		}
	}
}
