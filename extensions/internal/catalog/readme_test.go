package catalog

import (
	"os"
	"strings"
	"testing"
)

// README's metric table must name every metric the extension emits.
func TestReadmeListsEveryMetric(t *testing.T) {
	b, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range append(Metrics, Verdict) {
		if !strings.Contains(string(b), "| `"+m.Name+"` | "+string(m.Kind)) {
			t.Errorf("README.md has no table row for %s (%s)", m.Name, m.Kind)
		}
	}
}
