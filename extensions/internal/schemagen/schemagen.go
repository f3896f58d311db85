// Package schemagen writes schema/scenario.schema.json, the JSON Schema editors use to
// complete and check scenario files, from what the parser itself uses: the raw structs the
// strict decoder fills (scenario.RawTypes), the enumerations the parser names when it refuses
// a value (probed, probe.go), the broker option reference (package reference) and the
// descriptions of docs/scenario.md's reference table. schemagen_test.go fails when the
// committed file is stale. Nothing of this package is in the k6 binary.
//
// Draft-07: the draft that VS Code's YAML extension and JetBrains IDEs have supported
// longest and most completely; nothing here needs a later draft's keywords.
package schemagen

//go:generate go run ./gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// Path is the schema's place, relative to the repository root.
const Path = "schema/scenario.schema.json"

// Command regenerates it.
const Command = "cd extensions && go generate ./internal/schemagen/"

type obj = map[string]any

// Generate returns the schema's text for the repository at root.
func Generate(root string) ([]byte, error) {
	md, err := os.ReadFile(filepath.Join(root, "docs", "scenario.md"))
	if err != nil {
		return nil, err
	}
	docs, err := parseReference(string(md))
	if err != nil {
		return nil, fmt.Errorf("docs/scenario.md: %w", err)
	}
	b := &builder{docs: docs, types: scenario.RawTypes(), defs: definitions()}
	s, err := b.object(b.types["scenario"], "")
	if err != nil {
		return nil, err
	}
	s["type"] = "object" // the file itself cannot be empty
	out := obj{
		"$schema":     "http://json-schema.org/draft-07/schema#",
		"title":       "mqbench scenario",
		"description": "A scenario file of mqbench (docs/scenario.md). Generated from the parser's definitions; `k6 x mqbench validate FILE` checks what a schema cannot (cross-field rules, files, URLs).",
		"definitions": b.defs,
	}
	for k, v := range s {
		out[k] = v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
