package results

import (
	"html"
	"strconv"
)

// NoisyStealPct: a second in which the host (a virtual machine's hypervisor) gave more than
// this share of the machine's CPU time to other guests is a noisy second. On a shared 2-core
// host such seconds (16-45 % stolen, in bursts of minutes) had an e2e p99 of 2-17 ms against
// ~0.5 ms around them: the host's latency, not the broker's. summary.txt and report.html say
// how many a cell had; compare's gate leaves them out by default.
const NoisyStealPct = 2.0

// NoisySeconds counts the cell's seconds in which the host stole more than pct percent.
func (c *Cell) NoisySeconds(pct float64) int {
	n := 0
	for _, s := range c.HostSteal {
		if s.Pct > pct {
			n++
		}
	}
	return n
}

// stealNote says, for a cell with noisy seconds, how much the host took; "" without any.
func stealNote(c *Cell) string {
	n := c.NoisySeconds(NoisyStealPct)
	if n == 0 {
		return ""
	}
	overall := ""
	if c.HostStealPct != nil {
		overall = strconv.FormatFloat(*c.HostStealPct, 'f', 1, 64) + "% of its CPU time over the cell, "
	}
	return "the host (a virtual machine's hypervisor) gave this machine's CPU to other guests during " + c.ID + ": " + overall +
		"over " + strconv.FormatFloat(NoisyStealPct, 'g', -1, 64) + "% in " + seconds(n) + "; latency in those seconds is partly the host's (host_steal in summary.json; compare's gate leaves them out)."
}

// stealNotes are summary.txt's notes on noisy seconds, one per cell that had any.
func stealNotes(s *Summary) []string {
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
func stealHTML(c *Cell) string {
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
