//go:build tools

// Package tools pins the developer tools `make lint` builds (a module of its own, so their
// dependencies stay out of the extension's go.mod).
package tools

import _ "honnef.co/go/tools/cmd/staticcheck"
