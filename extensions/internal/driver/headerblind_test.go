package driver

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Drivers are header-blind: what a broker needs to know about a message travels beside it
// (Message.ID), so the header's layout can change without touching a driver.
func TestDriversDoNotReadTheHeader(t *testing.T) {
	const header = "github.com/mqbench/xk6-mqbench/internal/header"
	files, err := filepath.Glob("*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "drivertest"+string(os.PathSeparator)) {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, im := range af.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == header {
				t.Errorf("%s imports %s", f, header)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d driver files: the glob found no drivers", checked)
	}
}
