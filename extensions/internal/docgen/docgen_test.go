package docgen

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/exitcode"
)

// The committed pages are what the code gives: a metric or exit code added without
// `go generate ./internal/docgen/` fails here.
func TestGeneratedPagesAreCurrent(t *testing.T) {
	for rel, want := range Pages() {
		have, err := os.ReadFile(filepath.Join("..", "..", "..", rel))
		if err != nil {
			t.Fatalf("%s: %v (cd extensions && go generate ./internal/docgen/)", rel, err)
		}
		if string(have) != want {
			t.Errorf("%s is not what the code gives: cd extensions && go generate ./internal/docgen/", rel)
		}
	}
}

// The generated blocks inside hand-written pages are what the code gives.
func TestGeneratedSectionsAreCurrent(t *testing.T) {
	for rel, blocks := range Sections() {
		have, err := os.ReadFile(filepath.Join("..", "..", "..", rel))
		if err != nil {
			t.Fatal(err)
		}
		for name, block := range blocks {
			want, err := Splice(string(have), name, block)
			if err != nil {
				t.Errorf("%s: %v", rel, err)
			} else if want != string(have) {
				t.Errorf("%s's %s block is not what the code gives: cd extensions && go generate ./internal/docgen/", rel, name)
			}
		}
	}
}

// Each metric and each exit code appears in its page.
func TestPagesNameEveryMetricAndCode(t *testing.T) {
	m := Metrics()
	for _, list := range [][]catalog.Metric{catalog.Metrics, catalog.BuiltinThresholdMetrics} {
		for _, x := range list {
			if !strings.Contains(m, "| `"+x.Name+"` |") {
				t.Errorf("docs/metrics.md lacks %s", x.Name)
			}
		}
	}
	e := ExitCodes()
	for _, x := range exitcode.Table {
		if !strings.Contains(e, "| "+strconv.Itoa(x.Code)+" |") {
			t.Errorf("docs/exit-codes.md lacks %d", x.Code)
		}
	}
}
