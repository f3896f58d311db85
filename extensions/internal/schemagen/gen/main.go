// Command gen writes schema/scenario.schema.json (package schemagen). Run by
// `go generate ./internal/schemagen/` from extensions/; it only rewrites a changed file.
package main

import (
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
	return refgen.WriteChanged(filepath.Join(root, schemagen.Path), want)
}
