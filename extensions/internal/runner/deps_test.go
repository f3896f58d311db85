package runner

import (
	"os/exec"
	"strings"
	"testing"
)

// The measurement engine fills the results model and renders nothing: it links neither the
// report renderer nor Go's HTML packages (report.Write, one layer up, renders a run's files).
func TestEngineDoesNotLinkTheRenderer(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the package's dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasSuffix(dep, "/internal/report") || dep == "html" || strings.HasPrefix(dep, "html/") {
			t.Errorf("the runner depends on %s", dep)
		}
	}
}
