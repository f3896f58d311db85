package report

import (
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/jsnum"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// A shared-destination run's clock offsets and latency bounds (results.RunClock), in
// summary.txt and report.html.

// clockHTML is the report's clock section (nothing without a shared destination).
func clockHTML(s *results.Summary) string {
	if s.Clock == nil {
		return ""
	}
	var rows strings.Builder
	for _, r := range s.Clock.Runners {
		ref := r.Reference
		if ref == "" {
			ref = "not measured"
		}
		if r.TestOnlySkewMs != 0 {
			ref += " (test-only clock shift " + jsnum.Num(r.TestOnlySkewMs, 3) + " ms)"
		}
		rows.WriteString("<tr><td>" + itoa(int64(r.Runner)) + "</td><td>" + Esc(r.Role) + "</td><td>" + jsnum.Num(r.OffsetMs, 3) + " ms</td><td>±" +
			jsnum.Num(r.UncertaintyMs, 3) + " ms</td><td>" + jsnum.Num(r.MaxDriftMs, 3) + " ms</td><td>" + Esc(ref) + "</td></tr>")
	}
	var bounds []string
	for _, c := range s.Clock.Cells {
		if c.Measured {
			bounds = append(bounds, Esc(c.ID)+": ±"+jsnum.Num(c.BoundMs, 3)+" ms")
		} else {
			bounds = append(bounds, Esc(c.ID)+": not bounded (offsets not measured on several hosts)")
		}
	}
	return `<section id="clock"><h2>clock offsets</h2><p class="muted">Each runner's clock minus the reference clock, measured with timestamped round trips (uncertainty: half the round trip); cross-runner latencies are corrected by them and stay within the bound of each cell.</p>` +
		`<table class="num"><thead><tr><th>runner</th><th>role</th><th>offset</th><th>uncertainty</th><th>max drift</th><th>reference</th></tr></thead><tbody>` +
		rows.String() + `</tbody></table><p>latency bound per cell: ` + strings.Join(bounds, "; ") + `</p></section>` + "\n"
}

// clockText is the summary's clock section (nothing without a shared destination).
func clockText(s *results.Summary) []string {
	if s.Clock == nil {
		return nil
	}
	rows := [][]string{{"runner", "role", "offset", "± uncertainty", "max drift", "reference"}}
	for _, r := range s.Clock.Runners {
		ref := r.Reference
		if ref == "" {
			ref = "not measured"
		}
		if r.TestOnlySkewMs != 0 {
			ref += " (test-only clock shift " + jsnum.Num(r.TestOnlySkewMs, 3) + " ms)"
		}
		rows = append(rows, []string{itoa(int64(r.Runner)), r.Role, jsnum.Num(r.OffsetMs, 3) + " ms", jsnum.Num(r.UncertaintyMs, 3) + " ms", jsnum.Num(r.MaxDriftMs, 3) + " ms", ref})
	}
	out := []string{"", "clock offsets (runner − reference; cross-runner latencies corrected by them)", table(rows)}
	for _, c := range s.Clock.Cells {
		if c.Measured {
			out = append(out, "  "+c.ID+": cross-runner latencies within ±"+jsnum.Num(c.BoundMs, 3)+" ms")
		} else {
			out = append(out, "  "+c.ID+": cross-runner latencies not bounded (runners on several hosts, offsets not measured)")
		}
	}
	return out
}
