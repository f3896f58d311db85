package report

import (
	"path"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/jsnum"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/threshold"
)

// A cell's section of report.html: its charts, latency, ledger, faults and thresholds.

// curveSeries is a cell's distribution of one kind as a chart series, or false when nothing
// was recorded.
func curveSeries(c *results.Cell, kind string, dists map[string]map[string]hist.Distribution) (Series, bool) {
	st, _ := c.Stats(kind)
	pts, marks := Curve(st, dists[c.ID][kind])
	return Series{Points: pts, Marks: marks}, pts != nil
}

// limits are the cell's latency thresholds of the form p(N) < X or med < X (X in ms), as
// chart markers.
func limits(ts []results.Threshold) []Limit {
	var out []Limit
	for _, t := range ts {
		base, _, _ := strings.Cut(t.Metric, "{")
		known := false
		for _, k := range reportKinds {
			known = known || k.metric == base
		}
		e, err := threshold.ParseK6(t.Expression)
		if !known || err != nil || (e.Agg != "p" && e.Agg != "med") || (e.Op != "<" && e.Op != "<=") || e.Limit < 0 {
			continue
		}
		q, ms := e.P/100, e.Limit
		if e.Agg == "med" {
			q = 0.5
		}
		short := strings.TrimSuffix(strings.TrimPrefix(base, "mq_"), "_latency")
		out = append(out, Limit{Q: q, US: ms * 1000, OK: t.OK, Label: short + " " + source(t)})
	}
	return out
}

func latencyTable(c *results.Cell) string {
	var body strings.Builder
	unresolved := false
	for _, k := range append(reportKinds, struct{ kind, name, metric, color, dash string }{kind: "schedule_lag", name: "schedule lag"}) {
		st, _ := c.Stats(k.kind)
		if st.Count == 0 {
			continue
		}
		body.WriteString(`<tr><td>` + Esc(k.name) + `</td><td>` + itoa(st.Count) + `</td><td>` + USLabel(st.Min) + `</td><td>` + USLabel(st.Mean) + `</td><td>` + USLabel(st.StdDev) + `</td>`)
		for _, p := range chartPcts {
			if st.Resolved(p.Key) {
				body.WriteString(`<td>` + USLabel(pct(st, p.Key)) + `</td>`)
			} else {
				unresolved = true
				body.WriteString(`<td class="muted" title="` + Esc(UnresolvedNote[2:]) + `">` + USLabel(pct(st, p.Key)) + `*</td>`)
			}
		}
		body.WriteString(`<td>` + USLabel(st.Max) + `</td></tr>`)
	}
	if body.Len() == 0 {
		return `<p class="muted">no latency recorded</p>`
	}
	head := `<tr><th>latency</th><th>count</th><th>min</th><th>mean</th><th title="standard deviation">stddev</th>`
	for _, p := range chartPcts {
		head += `<th>` + p.Label() + `</th>`
	}
	note := ""
	if unresolved {
		note = `<p class="muted">` + Esc(UnresolvedNote) + `</p>`
	}
	return `<table class="num"><thead>` + head + `<th>max</th></tr></thead><tbody>` + body.String() + `</tbody></table>` + note
}

func ledgerTable(c *results.Cell) string {
	l := c.Ledger
	cols := []struct {
		key string
		v   uint64
		bad bool
	}{{"issued", l.Issued, false}, {"failed", l.Failed, true}, {"unique_received", l.Unique, false}, {"lost", l.Lost, true},
		{"unconfirmed", l.Unconfirmed, false}, {"held", l.Held, false}, {"duplicated", l.Duplicated, true}, {"reordered", l.Reordered, false}, {"late", l.Late, false}, {"unknown", l.Unknown, false}}
	var head, row strings.Builder
	for _, k := range cols {
		head.WriteString(`<th>` + strings.Replace(k.key, "_", " ", 1) + `</th>`)
		cls := ""
		if k.bad && k.v > 0 {
			cls = ` class="bad"`
		}
		row.WriteString(`<td` + cls + `>` + utoa(k.v) + `</td>`)
	}
	final := "no"
	if c.Finalized {
		final = "yes"
	}
	return `<table class="num ledger"><thead><tr>` + head.String() + `<th>final</th></tr></thead>` +
		`<tbody><tr>` + row.String() + `<td>` + final + `</td></tr></tbody></table>` + ledgerExtraHTML(c) + stealHTML(c)
}

// measuredHTML is a threshold's measured value in the report: time as µs/ms/s labels.
func measuredHTML(t results.Threshold) string {
	switch {
	case t.Value == nil:
		return "-"
	case t.Unit == "ms":
		return USLabel(*t.Value * 1000)
	}
	return plain(*t.Value)
}

// thresholdTable lists thresholds with their verdicts; a failure a metric cannot explain
// (GeneratorReason) gets its plain words on a row of its own.
func thresholdTable(s *results.Summary, ts []results.Threshold) string {
	if len(ts) == 0 {
		return `<p class="muted">no thresholds</p>`
	}
	var rows strings.Builder
	for _, t := range ts {
		cls, verdict := thresholdBadge(t)
		rows.WriteString(`<tr class="` + cls + `"><td class="verdict">` + verdict + `</td><td><code>` + Esc(t.Metric) + `</code></td><td><code>` + Esc(source(t)) + `</code></td><td>` + Esc(measuredHTML(t)) + `</td></tr>`)
		if why := results.GeneratorReason(s, t); why != "" {
			rows.WriteString(`<tr class="` + cls + `"><td></td><td colspan="3">` + Esc(why) + `</td></tr>`)
		}
	}
	return `<table class="thresholds"><thead><tr><th></th><th>metric</th><th>threshold</th><th>measured</th></tr></thead><tbody>` + rows.String() + `</tbody></table>`
}

// faultTable lists what the scenario's faults did (nothing without faults).
func faultTable(c *results.Cell) string {
	if len(c.Faults) == 0 {
		return ""
	}
	var rows strings.Builder
	for _, f := range c.Faults {
		outcome := "done in " + jsnum.Num(f.TookS, 1) + " s"
		if f.Error != "" {
			outcome = "failed: " + f.Error
		}
		rows.WriteString(`<tr><td>` + jsnum.Num(f.T, 1) + ` s</td><td>` + Esc(f.Action) + `</td><td>` + Esc(f.Asked) + `</td><td>` + Esc(f.Node) + `</td><td>` + Esc(outcome) + `</td></tr>`)
	}
	return "\n<h3>faults</h3>" + `<table class="faults"><thead><tr><th>t</th><th>action</th><th>asked</th><th>node</th><th>outcome</th></tr></thead><tbody>` + rows.String() + `</tbody></table>`
}

// faultEvents marks each kill and start of a node on the throughput chart.
func faultEvents(c *results.Cell) []Event {
	var ev []Event
	for _, f := range c.Faults {
		label := f.Action + " " + f.Node
		if f.Node == "" {
			label = f.Action + " " + f.Asked
		}
		if f.Node != "" && f.Asked != f.Node {
			label += " (" + f.Asked + ")"
		}
		if f.Error != "" {
			label += " failed"
		}
		ev = append(ev, Event{T: f.T, Label: label})
	}
	return ev
}

func cellSection(s *results.Summary, c *results.Cell, dists map[string]map[string]hist.Distribution) string {
	ts := s.CellThresholds(c)
	var series []Series
	for _, k := range reportKinds {
		if sr, ok := curveSeries(c, k.kind, dists); ok {
			sr.Name, sr.Color, sr.Dash = k.name, k.color, k.dash
			series = append(series, sr)
		}
	}
	pchart := `<p class="muted">no latency recorded</p>`
	if len(series) > 0 {
		pchart = PercentileChart(Chart{Title: c.ID + ": latency by percentile", Series: series, Limits: limits(ts)})
	}
	badgeCls, badge := cellBadge(s, c)
	status := ""
	if c.Status != "" && c.Status != "complete" {
		status = ` <span class="badge fail">` + Esc(c.Status) + `</span>`
	}
	var files []string
	for _, k := range results.Kinds {
		if rel := c.Hgrm[k]; rel != "" {
			files = append(files, `<a href="`+Esc(rel)+`">`+Esc(path.Base(rel))+`</a>`)
		}
	}
	filesP := ""
	if len(files) > 0 {
		filesP = `<p class="files">full distributions (HdrHistogram .hgrm, us): ` + strings.Join(files, " ") + `</p>`
	}
	return `<section class="cell" id="cell-` + Esc(c.ID) + `">
<h2>` + Esc(c.ID) + ` <small>` + Esc(c.SizeLabel) + ` at ` + rateText(c) + `, ` + itoa(int64(c.Producers)) + ` producer(s), ` + itoa(int64(c.Consumers)) + ` consumer(s), ` + jsnum.String(c.WarmupS) + `s warm-up + ` + jsnum.String(c.DurationS) + `s + ` + jsnum.String(c.DrainS) + `s drain</small>
<span class="badge ` + badgeCls + `">` + badge + `</span>` + status + `</h2>
<div class="charts">` + pchart + latencyOverTime(c) + throughput(c) + brokerCharts(c) + `</div>
` + closedNote(c) + `<p class="rates">sent ` + jsnum.Num(c.SenderRate, 0) + `/s, acked ` + jsnum.Num(c.AckRate, 0) + `/s, received ` + jsnum.Num(c.ReceiverRate, 0) + `/s, end to end ` + jsnum.Num(c.E2ERate, 0) + `/s (` + jsnum.Num(c.ReceiverBytesRate/1048576, 2) + ` MB/s); ` + utoa(c.Sent) + ` sent, ` + utoa(c.Received) + ` received after the warm-up; ` + utoa(c.PublishErrors) + ` publish errors` + firstErrorHTML(c) + `, ` + itoa(c.DroppedIterations) + ` dropped iterations</p>
<h3>latency</h3>` + latencyTable(c) + `
<h3>ledger</h3>` + ledgerTable(c) + faultTable(c) + drainHTML(c) + `
<h3>thresholds</h3>` + thresholdTable(s, ts) + `
` + filesP + `
</section>`
}

// firstErrorHTML names the first publish error after their count (summary.txt's note).
func firstErrorHTML(c *results.Cell) string {
	if c.PublishFirstError == "" {
		return ""
	}
	return ` (the first: ` + Esc(c.PublishFirstError) + `)`
}

// rateText is a cell's load as its heading states it.
func rateText(c *results.Cell) string {
	if c.Closed() {
		return "rate max (closed loop, " + itoa(int64(c.Inflight)) + " in flight per producer)"
	}
	return itoa(int64(c.Rate)) + " msg/s, batch " + itoa(int64(c.Batch))
}

// closedNote warns, beside a closed-loop cell's figures, what its latencies are not.
func closedNote(c *results.Cell) string {
	if !c.Closed() {
		return ""
	}
	return `<p class="note closed-loop">` + Esc(results.ClosedLoopCaveat) + `.</p>
`
}
