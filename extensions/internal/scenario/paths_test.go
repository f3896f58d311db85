package scenario

import (
	"os"
	"path/filepath"
)

// repoRoot is the mqbench checkout: go test runs a package's tests in its source folder
// (not runtime.Caller, whose paths -trimpath rewrites).
func repoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Join(wd, "..", "..", "..")
}

// scenarioFiles lists the shipped scenarios (scenarios/*.yaml; not the invalid/ examples).
func scenarioFiles() ([]string, error) {
	return filepath.Glob(filepath.Join(repoRoot(), "scenarios", "*.yaml"))
}
