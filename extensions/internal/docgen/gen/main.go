// Command gen writes the pages of package docgen (docs/metrics.md, docs/exit-codes.md).
// Run by `go generate ./internal/docgen/` from extensions/.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mqbench/xk6-mqbench/internal/docgen"
)

func main() {
	for rel, text := range docgen.Pages() {
		// go generate runs in the package's folder: the repository root is three up.
		path := filepath.Join("..", "..", "..", rel)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}
