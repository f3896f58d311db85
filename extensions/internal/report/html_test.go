package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// drawn counts the drawn series by name as the Chromium test (itest/report_test.go) does: a
// <g class="series"> whose <path> has points and no NaN.
func drawn(page string) map[string]int {
	out := map[string]int{}
	re := regexp.MustCompile(`<g class="series[^"]*" data-series="([^"]+)"><title>[^<]*</title><path d="([^"]*)"`)
	for _, m := range re.FindAllStringSubmatch(page, -1) {
		if strings.Count(m[2], "L") >= 3 && !strings.Contains(m[2], "NaN") {
			out[strings.ReplaceAll(m[1], "&amp;", "&")]++
		}
	}
	return out
}

// dists records real distributions for the sample's cells: the .hgrm rows the charts draw.
func dists(t *testing.T, s *results.Summary) map[string]map[string]hist.Distribution {
	t.Helper()
	out := map[string]map[string]hist.Distribution{}
	for i := range s.Cells {
		c := &s.Cells[i]
		out[c.ID] = map[string]hist.Distribution{}
		for _, kind := range results.Kinds {
			h := hist.New()
			for v := int64(1); v <= 5000; v++ {
				h.Record(v * 1000 * int64(i+1))
			}
			var b bytes.Buffer
			if err := h.WriteHgrm(&b); err != nil {
				t.Fatal(err)
			}
			d, err := hist.ParseHgrm(&b)
			if err != nil {
				t.Fatal(err)
			}
			out[c.ID][kind] = d
			if c.Hgrm == nil {
				c.Hgrm = map[string]string{}
			}
			c.Hgrm[kind] = "hgrm/" + c.ID + "." + kind + ".hgrm"
			c.SetStats(kind, h.Snapshot())
		}
	}
	return out
}

func TestHTML(t *testing.T) {
	s := sample()
	s.Cells[1].ID = `c2<&">`
	s.Cells[1].Thresholds[0].Cell = s.Cells[1].ID
	s.Thresholds[1].Cell, s.Thresholds[2].Cell = s.Cells[1].ID, s.Cells[1].ID
	s.Cells[1].Thresholds[0].Source = "p(99) < 5ms <script>"
	s.Cells[1].HostSteal = []results.StealSecond{{Start: 3, Length: 1, Pct: 30}}
	s.Cells[1].PublishErrors, s.Cells[1].PublishFirstError = 3, `nats: <script>alert(1)</script> timeout`
	page := HTML(s, dists(t, s))
	// A cell whose host stole CPU says so under its ledger (escaped like every other text).
	if !strings.Contains(page, `<p class="note">the host (a virtual machine&#39;s hypervisor) gave this machine&#39;s CPU to other guests during c2&lt;&amp;&#34;&gt;: over 2% in 1 second;`) ||
		strings.Count(page, "to other guests during") != 1 {
		t.Error("report.html lacks the host-steal note of c2, or has one for c1")
	}

	series := drawn(page)
	for name, want := range map[string]int{"publish": 2, "e2e": 2, "e2e intended": 2, "sent": 2, "received": 2, "p50": 2, "p99": 2, "max": 2,
		"c1 e2e (256B @ 400/s)": 1, `c2<&"> e2e (1KB @ 800/s)`: 0, "c2&lt;&&quot;&gt; e2e (1KB @ 800/s)": 1} {
		if series[name] != want {
			t.Errorf("series %q drawn %d times, want %d (all: %v)", name, series[name], want, series)
		}
	}
	// One percentile chart per cell, plus the overview's; per cell a latency-over-time and a
	// throughput chart.
	if n, m := strings.Count(page, `data-chart="percentile"`), strings.Count(page, `data-chart="time"`); n != 3 || m != 4 {
		t.Errorf("%d percentile charts, %d time charts; want 3 and 4", n, m)
	}
	// The breached thresholds come first, in the scenario's words.
	if i, j := strings.Index(page, `<section id="failed">`), strings.Index(page, `<section id="overview">`); i < 0 || j < i {
		t.Errorf("failed thresholds not at the top (at %d, overview at %d)", i, j)
	}
	for _, want := range []string{
		`<title>mqbench report-embedded 0a1b2c3d: FAIL</title>`,
		`id="verdict">FAIL<`,
		`class="legend-item" data-series="e2e intended"`,
		`<g class="limit ok" data-limit="e2e p(99) &lt; 5ms">`,
		`<g class="limit fail" data-limit="e2e p(99) &lt; 5ms &lt;script&gt;">`,
		`<section class="cell" id="cell-c2&lt;&amp;&quot;&gt;">`,
		`<a href="#cell-c2&lt;&amp;&quot;&gt;">c2&lt;&amp;&quot;&gt;</a>`,
		`<a href="hgrm/c1.e2e.hgrm">c1.e2e.hgrm</a>`,
		`<td class="verdict">FAIL</td><td><code>dropped_iterations{scenario:c2_publish}</code></td><td><code>count &lt; 1</code></td><td>7</td>`,
		`<section><h2>run-wide thresholds</h2>`,
		`<td>0.000</td>`, // mq_loss_ratio, run-wide
		`<td class="bad">1</td>`,
		`data-mq-ready`,
		`3 publish errors (the first: nats: &lt;script&gt;alert(1)&lt;/script&gt; timeout), `,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	for _, bad := range []string{"NaN", "undefined", "Infinity", "<script>alert", `c2<&">`, "<link", " src=", "https://", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html contains %q", bad)
		}
	}
	if strings.Count(page, "http://") != strings.Count(page, `xmlns="http://www.w3.org/2000/svg"`) {
		t.Error("report.html refers to http:// beyond the SVG namespace")
	}
	if strings.Count(page, "<script>") != 1 {
		t.Error("want exactly the page's own script")
	}
}

// Without .hgrm rows the curves come from the summary's percentiles.
func TestHTMLWithoutDistributions(t *testing.T) {
	page := HTML(sample(), nil)
	series := drawn(page)
	if series["e2e"] != 2 || series["publish"] != 2 || series["c2 e2e (1KB @ 800/s)"] != 1 {
		t.Errorf("series %v", series)
	}
	if strings.Contains(page, "NaN") || strings.Contains(page, `class="files"`) {
		t.Error("NaN, or links to .hgrm files that are not there")
	}
}

func TestHTMLEdgeCases(t *testing.T) {
	page := HTML(edge(), nil)
	for _, want := range []string{
		`id="verdict">ABORTED<`,
		"evil &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot; [31mred",
		`<span class="badge fail">not started</span>`,
		"no latency recorded", "no timeline recorded",
		`data-series="e2e"`,
		`<td>900us</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.ContainsAny(page, "\x1b\r") || strings.Contains(page, "undefined") || strings.Contains(page, "NaN") {
		t.Error("report.html has a control character, undefined or NaN")
	}
	// c1 has 3 samples: the curve stops at 1 - 1/3 (max), with no mark beyond it.
	if strings.Contains(page, "e2e p99: ") || !strings.Contains(page, "<title>e2e max: 900us</title>") {
		t.Error("marks beyond the resolvable quantile, or no max mark")
	}
}

func TestCurve(t *testing.T) {
	st := stats(1000, 10, 100, 900, 1000)
	pts, marks := Curve(st, hist.Distribution{Points: []hist.Point{{Value: 10, Q: 0}, {Value: 100, Q: 0.5}, {Value: 990, Q: 0.999}, {Value: 995, Q: 0.9995}, {Value: 1000, Q: 1}}})
	if len(pts) != 4 || pts[1] != [2]float64{0.5, 100} || pts[2] != [2]float64{0.999, 990} || pts[3] != [2]float64{0.999, 1000} {
		t.Errorf("points %v: want the rows up to 1 - 1/count, then max", pts)
	}
	if n := len(marks); n != 5 || marks[n-1].Label != "max" || marks[3].Label != "p99.9" {
		t.Errorf("marks %+v", marks)
	}
	if pts, marks := Curve(hist.Stats{}, hist.Distribution{}); pts != nil || marks != nil {
		t.Error("a curve for no samples")
	}
}
