//go:build tools

// Package tools pins nats-server so that `go build github.com/nats-io/nats-server/v2`
// run from this directory builds exactly the version in go.mod/go.sum.
package tools

import _ "github.com/nats-io/nats-server/v2"
