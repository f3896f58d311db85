package scenario

import (
	"path/filepath"
	"runtime"
)

// repoRoot is the mqbench checkout, found from this file so the tests do not depend on the
// directory go test runs them in.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// scenarioFiles lists the shipped scenarios (scenarios/*.yaml; not the invalid/ examples).
func scenarioFiles() ([]string, error) {
	return filepath.Glob(filepath.Join(repoRoot(), "scenarios", "*.yaml"))
}
