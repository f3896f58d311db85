package report

import (
	"html"
	"strconv"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

// Seconds the host stole CPU time in (results.NoisyStealPct), in summary.txt and report.html.

// stealNote says, for a cell with noisy seconds, how much the host took; "" without any.
func stealNote(c *results.Cell) string {
	n := c.NoisySeconds(results.NoisyStealPct)
	if n == 0 {
		return ""
	}
	overall := ""
	if c.HostStealPct != nil {
		overall = strconv.FormatFloat(*c.HostStealPct, 'f', 1, 64) + "% of its CPU time over the cell, "
	}
	return "the host (a virtual machine's hypervisor) gave this machine's CPU to other guests during " + c.ID + ": " + overall +
		"over " + strconv.FormatFloat(results.NoisyStealPct, 'g', -1, 64) + "% in " + seconds(n) + "; latency in those seconds is partly the host's (host_steal in summary.json; compare's gate leaves them out)."
}

// stealNotes are summary.txt's notes on noisy seconds, one per cell that had any.
func stealNotes(s *results.Summary) []string {
	var out []string
	for i := range s.Cells {
		if n := stealNote(&s.Cells[i]); n != "" {
			out = append(out, "note: "+n)
		}
	}
	if len(out) > 0 {
		out = append([]string{""}, out...)
	}
	return out
}

// stealHTML is report.html's counterpart of stealNotes for one cell.
func stealHTML(c *results.Cell) string {
	if n := stealNote(c); n != "" {
		return `<p class="note">` + html.EscapeString(n) + `</p>`
	}
	return ""
}

func seconds(n int) string {
	if n == 1 {
		return "1 second"
	}
	return itoa(int64(n)) + " seconds"
}
