package report

import (
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// What a ledger says beyond its totals: messages of a producer-only run, which nobody was
// there to receive, and with fan-out each subscription's own account.

// ledgerNotes are the console's lines about unconsumed messages and subscriptions.
func ledgerNotes(s *results.Summary) []string {
	var out []string
	for i := range s.Cells {
		c := &s.Cells[i]
		if l := c.Ledger; l.Unconsumed > 0 {
			out = append(out, "note: "+c.ID+" ran without consumers: "+utoa(l.Unconsumed)+" acknowledged messages were not consumed (neither received nor lost: nobody was there to tell).")
		}
	}
	rows := [][]string{{"cell", "subscription", "unique", "lost", "unconf", "held", "dup", "reord"}}
	for i := range s.Cells {
		c := &s.Cells[i]
		for j, st := range c.Ledger.Subscriptions {
			rows = append(rows, []string{c.ID, itoa(int64(j)), utoa(st.Unique), utoa(st.Lost), utoa(st.Unconfirmed), utoa(st.Held), utoa(st.Duplicated), utoa(st.Reordered)})
		}
	}
	if len(rows) > 1 {
		out = append(out, "", "ledger by subscription (each is owed every message)", table(rows))
	}
	return out
}

// ledgerExtraHTML is report.html's counterpart of ledgerNotes for one cell.
func ledgerExtraHTML(c *results.Cell) string {
	out := ""
	if l := c.Ledger; l.Unconsumed > 0 {
		out += `<p class="note">` + utoa(l.Unconsumed) + ` acknowledged messages were not consumed: the cell ran without consumers, so the ledger cannot tell delivered from lost.</p>`
	}
	if len(c.Ledger.Subscriptions) == 0 {
		return out
	}
	rows := ""
	for j, st := range c.Ledger.Subscriptions {
		bad := ""
		if st.Lost > 0 || st.Duplicated > 0 {
			bad = ` class="bad"`
		}
		rows += `<tr><td>` + itoa(int64(j)) + `</td><td>` + utoa(st.Unique) + `</td><td` + bad + `>` + utoa(st.Lost) + `</td><td>` + utoa(st.Unconfirmed) + `</td><td>` + utoa(st.Held) + `</td><td` + bad + `>` + utoa(st.Duplicated) + `</td><td>` + utoa(st.Reordered) + `</td></tr>`
	}
	return out + `<table class="num ledger"><thead><tr><th>subscription</th><th>unique received</th><th>lost</th><th>unconfirmed</th><th>held</th><th>duplicated</th><th>reordered</th></tr></thead><tbody>` + rows + `</tbody></table>`
}
