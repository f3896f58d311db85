//go:build tools

// Package tools pins cyclonedx-gomod, which writes the SBOM of a release (scripts/release.sh):
// a module of its own, so its dependencies stay out of the extension's go.mod.
package tools

import _ "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod"
