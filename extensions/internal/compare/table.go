package compare

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/textclean"
)

// CellIDs lists every cell id of the runs, in the order they first appear.
func CellIDs(runs []*results.Run) []string {
	var ids []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, c := range r.Cells {
			if !seen[c.ID] {
				seen[c.ID] = true
				ids = append(ids, c.ID)
			}
		}
	}
	return ids
}

// Columns of the comparison table; the first run is the reference for the deltas.
var tableHead = []string{"cell", "run", "broker", "size", "rate", "sent/s", "recv/s", "e2e p50", "e2e p99", "e2e p99.9", "e2e max", "publish p99", "lost", "thresholds"}

// Rows returns the comparison table: per cell, one row per run that has it, with e2e p99 and
// the receive rate also as a change against the first run that has the cell (when both ran
// the cell at the same size and rate).
func Rows(runs []*results.Run) [][]string {
	var rows [][]string
	p99, _ := ParseMetrics("e2e.p99")
	recv, _ := ParseMetrics("receiver_rate")
	for _, id := range CellIDs(runs) {
		var ref *results.Run
		for _, r := range runs {
			c := r.Cell(id)
			if c == nil {
				continue
			}
			if ref == nil {
				ref = r
			}
			lat := func(kind, stat string) string {
				m, _ := ParseMetrics(kind + "." + stat)
				v, _, ok := Value(r, id, m[0])
				if !ok {
					return "-"
				}
				return FormatUS(v)
			}
			delta := func(m Metric) string {
				v, _, ok := Value(r, id, m)
				if !ok {
					return "-"
				}
				s := m.Format(v)
				// A change only means something between cells of the same size and rate.
				same := ref.Cell(id).SizeLabel == c.SizeLabel && ref.Cell(id).RateLabel() == c.RateLabel()
				if b, _, bok := Value(ref, id, m); r != ref && same && bok && b != 0 {
					s += fmt.Sprintf(" (%+.1f%%)", (v-b)/b*100)
				}
				return s
			}
			verdict := "pass"
			if !c.ThresholdsOK() {
				verdict = "FAIL"
			}
			if c.Status != "" && c.Status != "complete" {
				verdict += " (" + c.Status + ")"
			}
			rows = append(rows, []string{id, r.Label, r.Broker.Type, c.SizeLabel, c.RateLabel(),
				fmt.Sprintf("%.0f", c.SenderRate), delta(recv[0]),
				lat("e2e", "p50"), delta(p99[0]), lat("e2e", "p99.9"), lat("e2e", "max"), lat("publish", "p99"),
				fmt.Sprint(c.Ledger.Lost), verdict})
		}
	}
	return rows
}

// Markdown renders the comparison as a Markdown table (readable as plain text too).
func Markdown(runs []*results.Run) string {
	var b strings.Builder
	b.WriteString("# mqbench comparison\n\n")
	for i, r := range runs {
		fmt.Fprintf(&b, "%d. **%s**: %s %s%s, run %s, %s (`%s`)\n", i+1, md(r.Label), md(r.Broker.Type), md(r.Broker.URL), md(serverOf(r)),
			md(r.RunID), md(r.FinishedAt), strings.ReplaceAll(textclean.Clean(r.Dir), "`", "'"))
	}
	b.WriteString("\nLatency from each run's HdrHistogram (us, ms, s); changes are against the first run listed for the cell.\n\n")
	rows := append([][]string{tableHead}, Rows(runs)...)
	for _, r := range rows[1:] {
		for i := range r {
			r[i] = md(r[i])
		}
	}
	width := make([]int, len(tableHead))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	line := func(r []string) {
		b.WriteString("|")
		for i, c := range r {
			fmt.Fprintf(&b, " %-*s |", width[i], c)
		}
		b.WriteString("\n")
	}
	line(rows[0])
	sep := make([]string, len(tableHead))
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
		if i >= 4 {
			sep[i] = strings.Repeat("-", width[i]-1) + ":"
		}
	}
	line(sep)
	for _, r := range rows[1:] {
		line(r)
	}
	return b.String()
}

// mdEscape escapes what would end a table cell, format, link or hide text in Markdown.
var mdEscape = strings.NewReplacer(`\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;")

// md makes text from a results folder (a scenario name, a status, a server's answer) one
// literal Markdown table cell or inline text: one clean line (textclean), Markdown's
// characters escaped, and a leading = + - @ that is not a number escaped, so a spreadsheet
// the table is pasted into reads no formula.
func md(s string) string {
	s = mdEscape.Replace(textclean.Clean(s))
	if s != "" && s != "-" && strings.ContainsRune("=+-@", rune(s[0])) {
		if _, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64); err != nil {
			s = `\` + s
		}
	}
	return s
}

// serverOf is " (server …)" when the run recorded what the server said it is: a comparison
// across a broker upgrade names both versions.
func serverOf(r *results.Run) string {
	if r.Broker.Server == "" {
		return ""
	}
	return " (server " + r.Broker.Server + ")"
}
