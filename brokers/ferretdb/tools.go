//go:build tools

// Package tools pins FerretDB so that `go build -mod=vendor github.com/FerretDB/FerretDB/cmd/ferretdb`
// run from this directory builds exactly the version in go.mod/go.sum.
package tools

import _ "github.com/FerretDB/FerretDB/cmd/ferretdb"
