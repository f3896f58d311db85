package itest

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// One short real run (report-embedded.yaml: embedded NATS JetStream, two cells, c2 with a
// threshold that cannot hold) checked for everything it leaves for people and CI, and then
// compared with variants of itself (compare_test.go).
func TestReportsAndCompare(t *testing.T) {
	k6Binary(t)
	t.Setenv("MQ_PROGRESS", "1s") // the CI progress line, whatever the run's length
	r := runScenario(t, "extensions/itest/testdata/report-embedded.yaml")
	if r.code != 99 || r.summary == nil {
		t.Fatalf("report-embedded: exit %d (want 99: c2's threshold cannot hold), summary %v\n%s", r.code, r.summary != nil, r)
	}
	t.Run("files", func(t *testing.T) { testRunWritesReportJUnitAndHgrm(t, r) })
	t.Run("junit", func(t *testing.T) { testJUnitNamesTheBrokenThreshold(t, r) })
	t.Run("chromium", func(t *testing.T) { testReportRendersInChromium(t, r) })
	t.Run("gate", func(t *testing.T) { testCompareGate(t, r) })
	t.Run("overlay", func(t *testing.T) { testCompareOverlay(t, r) })
	t.Run("java", func(t *testing.T) { testJavaReadsTheDistributions(t, r) })
}

// What a run leaves: report.html, junit.xml, one .hgrm per cell and latency kind, a timeline
// in summary.json, a plain console and a progress line.
func testRunWritesReportJUnitAndHgrm(t *testing.T, r run) {
	for _, f := range []string{"report.html", "junit.xml", "summary.json", "summary.txt"} {
		if _, err := os.Stat(filepath.Join(r.resultsDir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}

	var s struct {
		Cells []struct {
			ID                               string
			Sent, SentWarmup, ReceivedWarmup uint64
			Received                         uint64
			Timeline                         []struct {
				T              float64
				Sent, Received uint64
			}
			TimelineStepS float64 `json:"timeline_step_s"`
			Hgrm          map[string]string
			E2E           stats `json:"e2e_latency_us"`
		}
	}
	b, _ := os.ReadFile(filepath.Join(r.resultsDir, "summary.json"))
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for i, c := range s.Cells {
		sc := r.summary.Cells[i]
		var sent, recv uint64
		for _, p := range c.Timeline {
			sent += p.Sent
			recv += p.Received
		}
		if c.TimelineStepS != 1 || len(c.Timeline) < 4 || sent != sc.Sent+sc.SentWarmup || recv != sc.Received+sc.ReceivedWarmup {
			t.Errorf("%s: timeline (step %v, %d points) sums to sent %d recv %d, want %d / %d", c.ID, c.TimelineStepS, len(c.Timeline), sent, recv, sc.Sent+sc.SentWarmup, sc.Received+sc.ReceivedWarmup)
		}
		for _, kind := range []string{"publish", "e2e", "e2e_intended", "schedule_lag"} {
			rel := c.Hgrm[kind]
			if rel != "hgrm/"+c.ID+"."+kind+".hgrm" {
				t.Errorf("%s: summary.json hgrm[%s] = %q", c.ID, kind, rel)
				continue
			}
			f, err := os.Open(filepath.Join(r.resultsDir, rel))
			if err != nil {
				t.Error(err)
				continue
			}
			d, err := hist.ParseHgrm(f)
			f.Close()
			if err != nil || d.TotalCount == 0 || len(d.Points) < 10 {
				t.Errorf("%s: %d rows, count %d, %v", rel, len(d.Points), d.TotalCount, err)
			}
			if kind == "e2e" && (d.TotalCount != c.E2E.Count || d.Max < c.E2E.Max*0.999 || d.Max > c.E2E.Max*1.001) {
				t.Errorf("%s: count %d max %.3f, summary.json says %d / %.3f", rel, d.TotalCount, d.Max, c.E2E.Count, c.E2E.Max)
			}
		}
	}

	// Console: no control characters (escape sequences, carriage returns) on a non-terminal.
	if i := strings.IndexFunc(r.stdout, func(c rune) bool { return c < 0x20 && c != '\n' && c != '\t' || c == 0x7f }); i >= 0 {
		t.Errorf("control character %q in stdout at %d", r.stdout[i], i)
	}
	progress := regexp.MustCompile(`(?m)^mqbench c[12] \([12]/2, (256B|1KB) at 400/s\) \d+s/5s, run \d+s/11s: sent (\d+/s|-) recv (\d+/s|-), e2e (p50 [0-9.]+(us|ms) p99 [0-9.]+(us|ms)|-), backlog (\d+|-), errors 0, lost 0$`)
	if n := len(progress.FindAllString(r.stderr, -1)); n < 5 {
		t.Errorf("%d progress lines on stderr, want one a second:\n%s", n, r.stderr)
	}

	// report.html opens from disk: nothing fetched from the network.
	page, _ := os.ReadFile(filepath.Join(r.resultsDir, "report.html"))
	for _, bad := range []string{"<link", " src=", "https://", "@import", "url("} {
		if bytes.Contains(page, []byte(bad)) {
			t.Errorf("report.html contains %q: it must be self-contained", bad)
		}
	}
	if n := bytes.Count(page, []byte("http://")); n != bytes.Count(page, []byte(`xmlns="http://www.w3.org/2000/svg"`)) {
		t.Errorf("report.html refers to http:// beyond the SVG namespace")
	}
}

// junit.xml: a suite per cell, a case per threshold; the failure gives measured and limit.
func testJUnitNamesTheBrokenThreshold(t *testing.T, r run) {
	b, err := os.ReadFile(filepath.Join(r.resultsDir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Class   string `xml:"classname,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("junit.xml does not parse: %v\n%s", err, b)
	}
	if len(doc.Suites) != 2 || doc.Suites[0].Name != "report-embedded.c1" || doc.Suites[1].Name != "report-embedded.c2" {
		t.Fatalf("suites %+v", doc.Suites)
	}
	for i, su := range doc.Suites {
		if want := len(r.summary.Cells[i].Thresholds); su.Tests != want || len(su.Cases) != want {
			t.Errorf("%s: %d cases (tests=%d), want one per threshold: %d", su.Name, len(su.Cases), su.Tests, want)
		}
	}
	if doc.Suites[0].Failures != 0 || doc.Suites[1].Failures != 1 || doc.Failures != 1 || doc.Tests != len(r.summary.Thresholds) {
		t.Errorf("failures c1 %d c2 %d total %d, tests %d; want 0, 1, 1, %d", doc.Suites[0].Failures, doc.Suites[1].Failures, doc.Failures, doc.Tests, len(r.summary.Thresholds))
	}
	msg := regexp.MustCompile(`^mq_e2e_latency p\(99\) < 1ns: measured \d+(\.\d+)?(us|ms|s)$`)
	found := false
	for _, c := range doc.Suites[1].Cases {
		if c.Failure != nil {
			found = msg.MatchString(c.Failure.Message) && c.Name == "mq_e2e_latency p(99) < 1ns" && c.Class == "report-embedded.c2"
			if !found {
				t.Errorf("failure %q on case %q", c.Failure.Message, c.Name)
			}
		}
	}
	if !found {
		t.Errorf("no failing case for c2's p(99) < 1ns:\n%s", b)
	}
}

// report.html as a person sees it: rendered by headless Chromium, every chart drew its
// named series, the page's script ran, the console stayed silent.
func testReportRendersInChromium(t *testing.T, r run) {
	page := filepath.Join(r.resultsDir, "report.html")
	dom, shot := renderInChromium(t, page, 1400, 3000)

	if m := regexp.MustCompile(`data-mq-ready="(\d+)"`).FindStringSubmatch(dom); m == nil || m[1] == "0" {
		t.Errorf("the page's script did not run to its end (no data-mq-ready marker)")
	}
	series := seriesIn(dom)
	for _, want := range []string{"publish", "e2e", "e2e intended", "sent", "received", "c1 e2e (256B @ 400/s)", "c2 e2e (1KB @ 400/s)"} {
		if series[want] == 0 {
			t.Errorf("no drawn series %q (found %v)", want, series)
		}
	}
	if series["e2e"] != 2 || series["publish"] != 2 || series["sent"] != 2 {
		t.Errorf("per-cell charts: series %v, want e2e, publish and sent once per cell", series)
	}
	for _, want := range []string{`class="legend-item" data-series="e2e intended"`, `data-limit="e2e p(99) `, `id="verdict">FAIL<`} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered page lacks %s", want)
		}
	}
	// The screenshot shows the charts: the e2e red, the publish blue and the received green.
	for name, rgb := range map[string][3]uint8{"e2e (red)": {0xd6, 0x27, 0x28}, "publish (blue)": {0x1f, 0x77, 0xb4}, "received (green)": {0x2c, 0xa0, 0x2c}} {
		if n := pixels(t, shot, rgb); n < 200 {
			t.Errorf("screenshot has %d %s pixels: the chart did not draw", n, name)
		}
	}
}

// renderInChromium loads a local page in headless Chromium, returns the DOM after its scripts
// ran and the path of a screenshot, and fails on any console message. The screenshot is kept
// in $MQBENCH_SCREENSHOTS when set. Skips without Chromium unless MQBENCH_REQUIRE_BROKERS=1.
func renderInChromium(t *testing.T, page string, w, h int) (dom, shot string) {
	t.Helper()
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		if os.Getenv("MQBENCH_REQUIRE_BROKERS") == "1" {
			t.Fatal("chromium is not installed (apt-get install -y --no-install-recommends chromium)")
		}
		t.Skip("chromium not installed")
	}
	abs, _ := filepath.Abs(page)
	dir := t.TempDir()
	shot = filepath.Join(dir, strings.TrimSuffix(filepath.Base(page), ".html")+".png")
	if d := os.Getenv("MQBENCH_SCREENSHOTS"); d != "" {
		_ = os.MkdirAll(d, 0o755)
		shot, _ = filepath.Abs(filepath.Join(d, filepath.Base(shot)))
	}
	chrome := func(args ...string) (string, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0",
			"--window-size=" + strconv.Itoa(w) + "," + strconv.Itoa(h)}
		cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+abs)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
		}
		return out.String(), errb.String()
	}
	dom, logs := chrome("--dump-dom")
	_, logs2 := chrome("--screenshot=" + shot)
	for _, l := range strings.Split(logs+logs2, "\n") {
		if strings.Contains(l, ":CONSOLE") || strings.Contains(l, "Uncaught") {
			t.Errorf("browser console: %s", l)
		}
	}
	t.Logf("screenshot: %s", shot)
	return dom, shot
}

// seriesIn counts the drawn series by name: a <g class="series"> whose <path> has points.
func seriesIn(dom string) map[string]int {
	out := map[string]int{}
	re := regexp.MustCompile(`<g class="series[^"]*" data-series="([^"]+)"><title>[^<]*</title><path d="([^"]*)"`)
	for _, m := range re.FindAllStringSubmatch(dom, -1) {
		if strings.Count(m[2], "L") >= 3 && !strings.Contains(m[2], "NaN") {
			out[strings.ReplaceAll(m[1], "&amp;", "&")]++
		}
	}
	return out
}

// pixels counts the screenshot's pixels close to a color.
func pixels(t *testing.T, path string, rgb [3]uint8) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	n := 0
	b := img.Bounds()
	near := func(a uint32, c uint8) bool { d := int(a>>8) - int(c); return d > -25 && d < 25 }
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r, rgb[0]) && near(g, rgb[1]) && near(bl, rgb[2]) {
				n++
			}
		}
	}
	return n
}
