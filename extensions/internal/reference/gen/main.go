// Command gen writes docs/drivers.md and internal/reference/zz_generated.go from the
// drivers' options (see package refgen). Run by `go generate ./internal/reference/` from
// extensions/; it only rewrites a file whose content changed.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mqbench/xk6-mqbench/internal/reference/refgen"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := refgen.Root(".")
	if err != nil {
		return err
	}
	docs, err := refgen.Build(root)
	if err != nil {
		return err
	}
	src, err := refgen.GoSource(docs)
	if err != nil {
		return err
	}
	files := map[string][]byte{
		filepath.Join(root, "docs", "drivers.md"):                                     refgen.Markdown(docs),
		filepath.Join(root, "extensions", "internal", "reference", "zz_generated.go"): src,
	}
	for path, want := range files {
		if err := refgen.WriteChanged(path, want); err != nil {
			return err
		}
	}
	return nil
}
