package report

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the Go renderers")

// testdata/golden holds, for two summaries (<name>.json: the summary and each cell's .hgrm
// rows as [quantile, µs]), the summary.txt, junit.xml and report.html that the JavaScript
// handleSummary (lib/summary.js render, lib/junit.js, lib/report.js) rendered before the port
// to Go. The Go renderers match them byte for byte: same roundings, same chart coordinates.
// After a deliberate change to a report: go test ./internal/report -run TestGolden -update
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if len(inputs) == 0 {
		t.Fatal("no testdata/golden/*.json")
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Summary results.Summary
				Hgrm    map[string]map[string]struct{ Points [][2]float64 }
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			dists := map[string]map[string]hist.Distribution{}
			for id, kinds := range doc.Hgrm {
				dists[id] = map[string]hist.Distribution{}
				for kind, rows := range kinds {
					var d hist.Distribution
					for _, p := range rows.Points {
						d.Points = append(d.Points, hist.Point{Q: p[0], Value: p[1]})
					}
					dists[id][kind] = d
				}
			}
			s := &doc.Summary
			for file, got := range map[string]string{"summary.txt": Text(s), "junit.xml": JUnit(s), "report.html": HTML(s, dists)} {
				path := filepath.Join("testdata", "golden", name+"."+file)
				if *update {
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if got != string(want) {
					t.Errorf("%s differs from %s at byte %d:\n got …%s…\nwant …%s…", file, path, diffAt(got, string(want)), around(got, diffAt(got, string(want))), around(string(want), diffAt(got, string(want))))
				}
			}
		})
	}
}

func diffAt(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

func around(s string, i int) string {
	return s[max(0, i-80):min(len(s), i+80)]
}
