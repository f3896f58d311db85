package docgen

import (
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// docs/environment.md has a row for each variable of the contract and states the layout.
func TestEnvironmentNamesEveryVariable(t *testing.T) {
	page := Environment()
	for _, v := range runenv.Vars {
		if !strings.Contains(page, "| `"+v.Name+"` | "+v.Default+" | ") {
			t.Errorf("docs/environment.md lacks a row for %s", v.Name)
		}
	}
	for _, want := range []string{runenv.StampLayout, "`" + runenv.DefaultRoot + "`"} {
		if !strings.Contains(page, want) {
			t.Errorf("docs/environment.md does not state %s", want)
		}
	}
}
