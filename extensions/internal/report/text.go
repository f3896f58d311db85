package report

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/jsnum"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/textclean"
)

// Text renders summary.txt, also printed at the end of a run: the cells with their rates and
// ledger, a table per latency kind, every threshold with its verdict and measured value, and
// the verdict line (result: PASS / FAIL / ABORTED). Plain ASCII layout, no control characters.
func Text(s *results.Summary) string {
	// Every string of the summary may come from a broker or a results folder: cleaned to one
	// line each, none can add a line (a fake verdict) or drive the terminal it is printed on.
	s = textclean.Strings(s)
	var lines []string
	add := func(l ...string) { lines = append(lines, l...) }
	head := "mqbench " + s.Scenario + "  run " + s.RunID + "  broker " + s.Broker.Type + " " + s.Broker.URL + " (ack: " + s.Broker.AckMode + ")"
	if s.Broker.Server != "" {
		head += "  server: " + s.Broker.Server
	}
	add(head, "")
	if s.Pattern == results.PatternRequestReply {
		add(results.RequestReplyNote+".", "")
	}
	rows := [][]string{heads(CellColumns)}
	for _, c := range s.Cells {
		rows = append(rows, []string{c.ID, c.Status, c.SizeLabel, c.RateLabel(), itoa(int64(c.Batch)),
			jsnum.Num(c.SenderRate, 0), jsnum.Num(c.AckRate, 0), jsnum.Num(c.ReceiverRate, 0), jsnum.Num(c.E2ERate, 0), jsnum.Num(c.ReceiverBytesRate/1048576, 2),
			utoa(c.Sent), utoa(c.Received), utoa(c.Ledger.Lost), utoa(c.Ledger.Unconfirmed), utoa(c.Ledger.Held), utoa(c.Ledger.Duplicated), utoa(c.Ledger.Reordered),
			utoa(c.PublishErrors), itoa(c.DroppedIterations)})
	}
	add(table(rows))
	for _, c := range s.Cells {
		if c.PublishFirstError != "" {
			add("note: " + c.ID + ": " + utoa(c.PublishErrors) + " publish errors, first: " + c.PublishFirstError)
		}
	}
	for _, c := range s.Cells {
		if c.Closed() {
			add("", "note: "+c.ID+" ran rate: max with "+itoa(int64(c.Inflight))+" in flight per producer. "+results.ClosedLoopCaveat+".")
		}
	}
	for _, sec := range []struct{ title, kind string }{
		{"end-to-end latency (send -> receive)", "e2e"},
		{"end-to-end latency from intended send time (no coordinated omission)", "e2e_intended"},
		{"publish latency (send -> broker ack)", "publish"},
		{"schedule lag (iteration start - intended start)", "schedule_lag"},
	} {
		any := false
		for i := range s.Cells {
			if st, _ := s.Cells[i].Stats(sec.kind); st.Count > 0 {
				any = true
			}
		}
		if !any {
			continue
		}
		head := []string{"cell", "count"}
		for _, p := range hist.Percentiles {
			head = append(head, p.Label())
		}
		rows := [][]string{append(head, "max")}
		unresolved := false
		for i := range s.Cells {
			c := &s.Cells[i]
			st, _ := c.Stats(sec.kind)
			row := []string{c.ID, itoa(st.Count)}
			for _, p := range hist.Percentiles {
				row = append(row, orDash(st.Count > 0, func() string { return results.Micros(pct(st, p.Key)) + unresolvedMark(st, p) }))
				unresolved = unresolved || !st.Resolved(p.Key)
			}
			rows = append(rows, append(row, orDash(st.Count > 0, func() string { return results.Micros(st.Max) })))
		}
		add("", sec.title, table(rows))
		if unresolved {
			add(UnresolvedNote)
		}
	}
	if p := partRows(s); len(p) > 1 {
		add("", "per size of a mix and per named stage of a profile (end-to-end latency)", table(p))
	}
	add(stealNotes(s)...)
	add(ledgerNotes(s)...)
	if d := drainRows(s); len(d) > 1 {
		add("", "backlog build and drain (consumers held back, then let go)", table(d))
	}
	if f := faultRows(s); len(f) > 1 {
		add("", "faults (t: seconds since the cell started)", table(f))
	}
	add(brokerText(s)...)
	add(clockText(s)...)
	if all := s.AllThresholds(); len(all) > 0 {
		add("", "thresholds")
		for _, t := range all {
			verdict := map[string]string{results.StatusPass: "ok  ", results.StatusNoData: "no data"}[t.State()]
			if verdict == "" {
				verdict = "FAIL"
			}
			l := "  " + verdict + "  " + t.Metric + "  " + source(t)
			if why := results.GeneratorReason(s, t); why != "" {
				l = "  " + verdict + "  " + why
			} else if t.Value != nil {
				l += "  (measured " + measuredText(t) + ")"
			} else if t.State() == results.StatusNoData {
				l += "  (nothing measured)"
			}
			add(l)
		}
	}
	var total float64
	for _, c := range s.Cells {
		total += float64(c.BytesReceived)
	}
	add("", "received "+bytesLabel(total)+" in "+jsnum.Num(s.TestRunDurationMs/1000, 1)+"s; results in "+s.ResultsDir)
	switch {
	case s.Error != "":
		add("result: NOT RUN (" + s.Error + ")")
	case !s.Complete:
		add("result: ABORTED (stopped before every cell ended; figures above are what was measured)")
	case s.ThresholdsOK && countNoData(s) == 0:
		add("result: PASS")
	case countNoData(s) > 0:
		add("result: FAIL (" + noDataText(s) + ")")
	case results.GeneratorOnly(s):
		add("result: INVALID (" + results.GeneratorVerdict + ")")
	default:
		add("result: FAIL (thresholds crossed)")
	}
	return textclean.Lines(strings.Join(lines, "\n") + "\n")
}

// faultRows is a table of what the scenario's faults did, with its header row.
func faultRows(s *results.Summary) [][]string {
	rows := [][]string{{"cell", "t", "action", "asked", "node", "outcome"}}
	for _, c := range s.Cells {
		for _, f := range c.Faults {
			outcome := "done in " + jsnum.Num(f.TookS, 1) + "s"
			if f.Error != "" {
				outcome = "FAILED: " + f.Error
			}
			rows = append(rows, []string{c.ID, jsnum.Num(f.T, 1) + "s", f.Action, f.Asked, orDash(f.Node != "", func() string { return f.Node }), outcome})
		}
	}
	return rows
}

// bytesLabel is lib/format.js bytes: 0B, 512B, 1.5KB, 12.0MB.
func bytesLabel(v float64) string {
	if v == 0 || math.IsNaN(v) {
		return "0B"
	}
	units := []string{"B", "KB", "MB", "GB"}
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return jsnum.ToFixed(v, min(i, 1)) + units[i]
}

// table is lib/format.js table: the first row is the header, the first column left-aligned,
// the others right-aligned, two spaces apart.
func table(rows [][]string) string {
	width := make([]int, len(rows[0]))
	for r := range rows {
		for c := range rows[r] {
			rows[r][c] = textclean.Clean(rows[r][c])
			width[c] = max(width[c], utf8.RuneCountInString(rows[r][c]))
		}
	}
	out := make([]string, len(rows))
	for r, row := range rows {
		cells := make([]string, len(row))
		for c, v := range row {
			pad := strings.Repeat(" ", width[c]-utf8.RuneCountInString(v))
			if c == 0 {
				cells[c] = v + pad
			} else {
				cells[c] = pad + v
			}
		}
		out[r] = strings.Join(cells, "  ")
	}
	return strings.Join(out, "\n")
}

// Breaches lists each failed threshold once, as the scenario wrote it, with its measured
// value: "mq_e2e_latency{cell:c1} p(99) < 20us: measured 159.2us"; dropped iterations in
// plain words (GeneratorReason).
func Breaches(s *results.Summary) []string {
	var out []string
	for _, t := range s.AllThresholds() {
		if t.OK {
			continue
		}
		l := t.Metric + " " + source(t)
		if why := results.GeneratorReason(s, t); why != "" {
			l = why
		} else if t.Value != nil {
			l += ": measured " + measuredText(t)
		} else if t.State() == results.StatusNoData {
			l += ": no data (nothing measured)"
		} else {
			l += ": nothing measured"
		}
		out = append(out, l)
	}
	return out
}

// measuredText is a threshold's measured value as summary.txt and junit.xml print it:
// time in us/ms/s, other values as integers or with three decimals.
func measuredText(t results.Threshold) string {
	if t.Value == nil {
		return ""
	}
	if t.Unit == "ms" {
		return results.Micros(*t.Value * 1000)
	}
	return plain(*t.Value)
}

// plain is a count or ratio: an integer as such, anything else with three decimals.
func plain(v float64) string {
	if v == math.Trunc(v) && !math.IsInf(v, 0) {
		return jsnum.String(v)
	}
	return jsnum.Num(v, 3)
}

// source is the threshold as the scenario wrote it (its k6 form when that is unknown).
func source(t results.Threshold) string {
	if t.Source != "" {
		return t.Source
	}
	return t.Expression
}

// pct is a percentile of the summary by key (p99_9); NaN when absent.
func pct(st hist.Stats, key string) float64 {
	if v, ok := st.P[key]; ok {
		return v
	}
	return math.NaN()
}

// UnresolvedNote explains the mark on a percentile the sample count cannot resolve.
const UnresolvedNote = "* fewer samples than the percentile resolves (p99 needs 100, p99.99 10,000): the value is the max of too few"

// unresolvedMark is "*" after a percentile the sample count cannot resolve.
func unresolvedMark(st hist.Stats, p hist.Percentile) string {
	if st.Resolved(p.Key) {
		return ""
	}
	return "*"
}

func orDash(ok bool, f func() string) string {
	if !ok {
		return "-"
	}
	return f()
}

func itoa(v int64) string  { return strconv.FormatInt(v, 10) }
func utoa(v uint64) string { return strconv.FormatUint(v, 10) }
