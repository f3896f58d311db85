// Command gen writes schema/scenario.schema.json (package schemagen). Run by
// `go generate ./internal/schemagen/` from extensions/; it only rewrites a changed file.
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mqbench/xk6-mqbench/internal/reference/refgen"
	"github.com/mqbench/xk6-mqbench/internal/schemagen"
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
	want, err := schemagen.Generate(root)
	if err != nil {
		return err
	}
	path := filepath.Join(root, schemagen.Path)
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, want) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	fmt.Println("wrote", path)
	return os.WriteFile(path, want, 0o644)
}
