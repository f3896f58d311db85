package ladder

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

// Rung is what a rung's run measured: its one cell and the child k6's peak memory.
type Rung struct {
	*results.Cell
	MaxRSSMB float64
}

// Rule is one meaning of "a run held its rate", judged on the run's one cell.
type Rule struct {
	Doc string
	// Only, when set, is noted on a row where this rule held and every rule before it in
	// the probe did not ("held on average only").
	Only string
	Held func(c *Rung, rate int, lateMax time.Duration) bool
}

// reached: every one of rates reached 98 % of the target (a generator that fell behind for a
// moment and caught up still passes).
func reached(rate int, rates ...float64) bool {
	for _, r := range rates {
		if r < 0.98*float64(rate) {
			return false
		}
	}
	return true
}

// held is the strict rule: no dropped iteration, nothing lost, everything sent received.
func held(c *Rung) bool {
	return c.DroppedIterations == 0 && c.Ledger.Lost == 0 && c.Received == c.Sent && c.Sent > 0
}

// Rules are the rules a ladder can judge by, by name.
var Rules = map[string]Rule{
	"held": {Doc: "no dropped iteration, nothing lost, everything sent received",
		Held: func(c *Rung, _ int, _ time.Duration) bool { return held(c) }},
	"on-time": {Doc: "held, and the schedule never --late-max or more behind",
		Held: func(c *Rung, _ int, late time.Duration) bool {
			return held(c) && c.ScheduleLag.Max < float64(late.Microseconds())
		}},
	"acked": {Doc: "sent and acknowledged rates >= 98 % of the target, every send acknowledged, no publish error (producers only)",
		Held: func(c *Rung, rate int, _ time.Duration) bool {
			return reached(rate, c.SenderRate, c.AckRate) && c.Acked == c.Sent && c.PublishErrors == 0
		}},
	"rates": {Doc: "sent, acknowledged and received rates >= 98 % of the target, nothing lost, no publish error",
		Held: func(c *Rung, rate int, _ time.Duration) bool {
			return reached(rate, c.SenderRate, c.AckRate, c.ReceiverRate) && c.Ledger.Lost == 0 && c.PublishErrors == 0
		}},
	"average": {Doc: "sent, acknowledged and received rates >= 98 % of the target, nothing lost, everything received",
		Only: "held on average only",
		Held: func(c *Rung, rate int, _ time.Duration) bool {
			return reached(rate, c.SenderRate, c.AckRate, c.ReceiverRate) && c.Ledger.Lost == 0 && c.Received == c.Sent
		}},
}

// Columns are what a row can show of a run, by name; "errors" shows only when there were some,
// "rss" is the peak resident memory of the run's k6.
var Columns = map[string]func(c *Rung) string{
	"sent/s":    func(c *Rung) string { return fmt.Sprintf("%.0f", c.SenderRate) },
	"acked/s":   func(c *Rung) string { return fmt.Sprintf("%.0f", c.AckRate) },
	"recv/s":    func(c *Rung) string { return fmt.Sprintf("%.0f", c.ReceiverRate) },
	"dropped":   func(c *Rung) string { return fmt.Sprintf("%d", c.DroppedIterations) },
	"lost":      func(c *Rung) string { return fmt.Sprintf("%d", c.Ledger.Lost) },
	"late-max":  func(c *Rung) string { return fmt.Sprintf("%.1fms", c.ScheduleLag.Max/1e3) },
	"late-max0": func(c *Rung) string { return fmt.Sprintf("%.0fms", c.ScheduleLag.Max/1e3) },
	"rss":       func(c *Rung) string { return fmt.Sprintf("%.1fMB", c.MaxRSSMB) },
	"errors": func(c *Rung) string {
		if c.PublishErrors == 0 {
			return ""
		}
		return fmt.Sprintf("errors %d", c.PublishErrors)
	},
}

// Line is a run's column of a row: the named columns, space-separated (empty ones left out).
func Line(c *Rung, columns []string) string {
	var fs []string
	for _, name := range columns {
		if f := Columns[name](c); f != "" {
			fs = append(fs, f)
		}
	}
	return strings.Join(fs, " ")
}

// Names lists a table's keys, sorted (for help and errors).
func Names[T any](m map[string]T) string {
	var ns []string
	for n := range m {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return strings.Join(ns, ", ")
}
