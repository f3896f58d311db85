//go:build tools

// Package tools pins xk6, the k6 ecosystem's builder, for the test that builds mqbench the way
// k6 users add an extension (scripts/xk6/test.sh): a module of its own, so xk6's dependencies
// stay out of the extension's go.mod.
package tools

import _ "go.k6.io/xk6"
