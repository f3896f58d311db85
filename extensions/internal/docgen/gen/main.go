// Command gen writes the pages of package docgen (docs/metrics.md, docs/exit-codes.md,
// docs/console.md, docs/environment.md) and its generated blocks inside hand-written pages
// (README.md's exit codes).
// Run by `go generate ./internal/docgen/` from extensions/.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mqbench/xk6-mqbench/internal/docgen"
)

func main() {
	for rel, blocks := range docgen.Sections() {
		path := filepath.Join("..", "..", "..", rel)
		page, err := os.ReadFile(path)
		text := string(page)
		for name, block := range blocks {
			if err == nil {
				text, err = docgen.Splice(text, name, block)
			}
		}
		if err == nil {
			err = os.WriteFile(path, []byte(text), 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", rel+":", err)
			os.Exit(1)
		}
	}
	for rel, text := range docgen.Pages() {
		// go generate runs in the package's folder: the repository root is three up.
		path := filepath.Join("..", "..", "..", rel)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}
