package ladder

import (
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/ledger"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// cell is a run at 1,000 msg/s that held by every rule; each case spoils one thing.
func cell(f func(c *results.Cell)) *Rung {
	c := &results.Cell{Sent: 60000, Acked: 60000, Received: 60000, SenderRate: 1000, AckRate: 1000, ReceiverRate: 1000,
		ScheduleLag: hist.Stats{Max: 5000}, Ledger: ledger.Tally{}}
	if f != nil {
		f(c)
	}
	return &Rung{Cell: c, MaxRSSMB: 113.457}
}

func TestRules(t *testing.T) {
	late := 100 * time.Millisecond
	for _, tc := range []struct {
		name string
		c    *Rung
		want map[string]bool // rule → held
	}{
		{"every rule holds", cell(nil), map[string]bool{"held": true, "on-time": true, "acked": true, "rates": true, "average": true}},
		{"one dropped iteration", cell(func(c *results.Cell) { c.DroppedIterations = 1 }),
			map[string]bool{"held": false, "on-time": false, "acked": true, "rates": true, "average": true}},
		{"one lost", cell(func(c *results.Cell) { c.Ledger.Lost = 1 }),
			map[string]bool{"held": false, "on-time": false, "acked": true, "rates": false, "average": false}},
		{"one not received", cell(func(c *results.Cell) { c.Received-- }),
			map[string]bool{"held": false, "on-time": false, "acked": true, "rates": true, "average": false}},
		{"nothing sent", cell(func(c *results.Cell) { *c = results.Cell{} }),
			map[string]bool{"held": false, "on-time": false, "acked": false, "rates": false, "average": false}},
		{"100 ms late at most", cell(func(c *results.Cell) { c.ScheduleLag.Max = 100e3 }),
			map[string]bool{"held": true, "on-time": false, "acked": true, "rates": true, "average": true}},
		{"just under 100 ms late", cell(func(c *results.Cell) { c.ScheduleLag.Max = 99_999 }),
			map[string]bool{"held": true, "on-time": true}},
		{"acknowledged at 97.9 %", cell(func(c *results.Cell) { c.AckRate = 979 }),
			map[string]bool{"held": true, "acked": false, "rates": false, "average": false}},
		{"received at 98 %", cell(func(c *results.Cell) { c.ReceiverRate = 980 }),
			map[string]bool{"acked": true, "rates": true, "average": true}},
		{"received at 97.9 % (producers only: not judged by acked)", cell(func(c *results.Cell) { c.ReceiverRate = 979 }),
			map[string]bool{"acked": true, "rates": false, "average": false}},
		{"a send unacknowledged", cell(func(c *results.Cell) { c.Acked-- }),
			map[string]bool{"held": true, "acked": false, "rates": true}},
		{"a publish error", cell(func(c *results.Cell) { c.PublishErrors = 1 }),
			map[string]bool{"held": true, "acked": false, "rates": false, "average": true}},
	} {
		for rule, want := range tc.want {
			if got := Rules[rule].Held(tc.c, 1000, late); got != want {
				t.Errorf("%s: rule %s held = %v, want %v", tc.name, rule, got, want)
			}
		}
	}
}

func TestLineAndNote(t *testing.T) {
	c := cell(func(c *results.Cell) { c.ScheduleLag.Max = 12_345; c.SenderRate = 999.5; c.DroppedIterations = 3 })
	for _, tc := range []struct {
		cols []string
		want string
	}{
		{[]string{"sent/s", "recv/s", "dropped", "lost", "late-max"}, "1000 1000 3 0 12.3ms"},
		{[]string{"sent/s", "acked/s", "dropped", "errors"}, "1000 1000 3"},
		{[]string{"late-max0", "errors"}, "12ms"},
	} {
		if got := Line(c, tc.cols); got != tc.want {
			t.Errorf("Line(%v) = %q, want %q", tc.cols, got, tc.want)
		}
	}
	c.PublishErrors = 2
	if got := Line(c, []string{"dropped", "errors", "rss"}); got != "3 errors 2 113.5MB" {
		t.Errorf("errors column: %q", got)
	}
	for _, tc := range []struct {
		rules []string
		held  []bool
		want  string
	}{
		{[]string{"held", "average"}, []bool{false, true}, "  (held on average only)"},
		{[]string{"held", "average"}, []bool{true, true}, ""},
		{[]string{"held", "average"}, []bool{false, false}, ""},
		{[]string{"average"}, []bool{true}, ""},
	} {
		if got := Note(tc.rules, tc.held); got != tc.want {
			t.Errorf("Note(%v, %v) = %q, want %q", tc.rules, tc.held, got, tc.want)
		}
	}
}

func TestLateVUsAndBatch(t *testing.T) {
	for _, tc := range []struct{ rate, batch, vus int }{{1000, 1, 102}, {40000, 20, 202}, {2000, 1, 202}, {10, 1, 3}} {
		if got := LateVUs(tc.rate, tc.batch, 100*time.Millisecond); got != tc.vus {
			t.Errorf("LateVUs(%d, %d) = %d, want %d", tc.rate, tc.batch, got, tc.vus)
		}
	}
	for _, tc := range []struct{ rate, per, batch int }{{5000, 5000, 1}, {5001, 5000, 1}, {20000, 5000, 4}, {300, 2000, 1}} {
		if got := Batch(tc.rate, tc.per); got != tc.batch {
			t.Errorf("Batch(%d, %d) = %d, want %d", tc.rate, tc.per, got, tc.batch)
		}
	}
}
