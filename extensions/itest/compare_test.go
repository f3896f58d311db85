package itest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// compareScript runs scripts/compare.sh (what `make compare` runs) with the given variables.
func compareScript(t *testing.T, vars ...string) (code int, stdout, stderr string) {
	t.Helper()
	root := repoRoot(t)
	cmd := exec.Command(filepath.Join(root, "scripts", "compare.sh"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), append([]string{"MQBENCH_K6=" + k6Binary(t), "RUNS=", "BASELINE=", "CANDIDATE=", "TOLERANCE=", "METRICS=", "COMPARE_OUT="}, vars...)...)
	r := execRun(t, cmd)
	return r.code, r.stdout, r.stderr
}

// variant copies a run's folder to dir/<scenario>/<same timestamp> and edits its summary.json;
// scale multiplies every latency in its .hgrm files (so the overlay shows two curves).
func variant(t *testing.T, src, dir, scenario string, scale float64, edit func(s map[string]any)) string {
	t.Helper()
	dst := filepath.Join(dir, scenario, filepath.Base(src))
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".hgrm") && scale != 1 {
			b = scaleHgrm(b, scale)
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dst, "summary.json")
	var s map[string]any
	b, _ := os.ReadFile(p)
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	s["scenario"] = scenario
	edit(s)
	b, _ = json.MarshalIndent(s, "", "  ")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

func scaleHgrm(b []byte, k float64) []byte {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) < 3 {
			continue
		}
		if v, err := strconv.ParseFloat(f[0], 64); err == nil {
			lines[i] = fmt.Sprintf("%12.3f", v*k) + l[12:]
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// cellOf returns summary.json's cell i as a map.
func cellOf(s map[string]any, i int) map[string]any {
	return s["cells"].([]any)[i].(map[string]any)
}

// The regression gate: `make compare BASELINE=… CANDIDATE=… TOLERANCE=10%` exits 1 and says
// which cell regressed, on which metric and by how much; an unchanged run passes.
func testCompareGate(t *testing.T, r run) {
	out := t.TempDir()
	code, stdout, stderr := compareScript(t, "BASELINE="+r.resultsDir, "CANDIDATE="+r.resultsDir, "TOLERANCE=10%", "COMPARE_OUT="+out)
	if code != 0 || !strings.Contains(stdout, "result: PASS") || !strings.Contains(stdout, "ok    cell c1: publish p99 unchanged") {
		t.Fatalf("a run against itself: exit %d\n%s%s", code, stdout, stderr)
	}

	worse := variant(t, r.resultsDir, t.TempDir(), "report-embedded", 1, func(s map[string]any) {
		p := cellOf(s, 0)["e2e_latency_us"].(map[string]any)["percentiles"].(map[string]any)
		p["p99"] = p["p99"].(float64) * 1.5
		c2 := cellOf(s, 1)
		c2["receiver_rate"] = c2["receiver_rate"].(float64) * 0.8
	})
	// results/<scenario> (its latest run) works as well as the run's own folder.
	code, stdout, stderr = compareScript(t, "BASELINE="+filepath.Dir(r.resultsDir), "CANDIDATE="+filepath.Dir(worse), "TOLERANCE=10%", "COMPARE_OUT="+out)
	if code != 1 {
		t.Fatalf("regressed candidate: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	for _, re := range []string{
		// 5-second cells: too few blocks for the rank test to reach its level, so the
		// tolerance alone judges, and says so (and which seconds the host stole, if it did).
		`(?m)^FAIL  cell c1: e2e p99 regressed 50\.0% \(\d\S* -> \d\S*\), tolerance 10% \[noise unknown \(too few blocks\): the tolerance alone judged\]( \[left out: [^]]+\])?$`,
		`(?m)^FAIL  cell c2: receiver_rate regressed 20\.0% \(\d+/s -> \d+/s\), tolerance 10% \[noise unknown \(too few blocks\): the tolerance alone judged\]( \[left out: [^]]+\])?$`,
		`(?m)^ok    cell c2: e2e p99 unchanged`,
		`(?m)^result: FAIL, 2 regression\(s\):$`,
	} {
		if !regexp.MustCompile(re).MatchString(stdout) {
			t.Errorf("gate output lacks %s:\n%s", re, stdout)
		}
	}
	code, stdout, _ = compareScript(t, "BASELINE="+r.resultsDir, "CANDIDATE="+worse, "TOLERANCE=60%", "METRICS=e2e.p99,e2e.p95,receiver_rate", "COMPARE_OUT="+out)
	if code != 0 || !strings.Contains(stdout, "cell c1: e2e p95 unchanged") {
		t.Errorf("within a 60%% tolerance: exit %d\n%s", code, stdout)
	}
	if code, _, stderr = compareScript(t, "BASELINE="+r.resultsDir); code != 2 || !strings.Contains(stderr, "BASELINE and CANDIDATE go together") {
		t.Errorf("BASELINE alone: exit %d, %s", code, stderr)
	}
	if code, _, stderr = compareScript(t, "BASELINE="+r.resultsDir, "CANDIDATE="+r.resultsDir, "METRICS=e2e.p99,latency"); code != 2 || !strings.Contains(stderr, `metric "latency"`) {
		t.Errorf("unknown metric: exit %d, %s", code, stderr)
	}
	// `make compare` passes its variables to the script.
	mk := exec.Command("make", "-n", "compare", "BASELINE=a", "CANDIDATE=b", "TOLERANCE=5%")
	mk.Dir = repoRoot(t)
	b, err := mk.CombinedOutput()
	if err != nil || !strings.Contains(string(b), `BASELINE="a" CANDIDATE="b" TOLERANCE="5%"`) || !strings.Contains(string(b), "scripts/compare.sh") {
		t.Errorf("make -n compare: %v\n%s", err, b)
	}
}

// `make compare RUNS="a b"` overlays the runs on one percentile chart per cell (compare.html,
// rendered in Chromium here) and prints the comparison table (also in compare.md).
func testCompareOverlay(t *testing.T, r run) {
	other := variant(t, r.resultsDir, t.TempDir(), "report-other", 2, func(s map[string]any) {
		for i := range s["cells"].([]any) {
			for _, k := range []string{"e2e_latency_us", "publish_latency_us"} {
				h := cellOf(s, i)[k].(map[string]any)
				h["max"] = h["max"].(float64) * 2
				for p, v := range h["percentiles"].(map[string]any) {
					h["percentiles"].(map[string]any)[p] = v.(float64) * 2
				}
			}
		}
	})
	out := t.TempDir()
	code, stdout, stderr := compareScript(t, "RUNS="+r.resultsDir+" "+other, "COMPARE_OUT="+out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, re := range []string{`\| c1 +\| report-embedded +\| nats +\| 256B`, `\| c2 +\| report-other +\| nats +\| 1KB .*\(\+100\.0%\)`} {
		if !regexp.MustCompile(re).MatchString(stdout) {
			t.Errorf("table lacks %s:\n%s", re, stdout)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "compare.md"))
	if err != nil || !strings.Contains(string(md), "| report-other") {
		t.Errorf("compare.md: %v\n%s", err, md)
	}
	dom, shot := renderInChromium(t, filepath.Join(out, "compare.html"), 1400, 1100)
	series := seriesIn(dom)
	for _, name := range []string{"report-embedded e2e", "report-other e2e", "report-embedded publish", "report-other publish"} {
		if series[name] != 2 {
			t.Errorf("series %q drawn in %d charts, want one per cell (2): %v", name, series[name], series)
		}
	}
	if m := regexp.MustCompile(`data-mq-ready="(\d+)"`).FindStringSubmatch(dom); m == nil || m[1] != "8" {
		t.Errorf("compare.html script marker %v, want 8 drawn series", m)
	}
	if n := pixels(t, shot, [3]uint8{0xd6, 0x27, 0x28}); n < 200 {
		t.Errorf("first run's color: %d pixels", n)
	}
	if n := pixels(t, shot, [3]uint8{0x1f, 0x77, 0xb4}); n < 200 {
		t.Errorf("second run's color: %d pixels", n)
	}
}
