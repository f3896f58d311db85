//go:build tools

// Package tools pins nsqd and NSQ's bench tools so that `go build github.com/nsqio/nsq/apps/nsqd`
// (and bench/bench_writer, bench/bench_reader) run from this directory builds exactly the
// version in go.mod/go.sum.
package tools

import (
	_ "github.com/nsqio/nsq/apps/nsqd"
	_ "github.com/nsqio/nsq/bench/bench_reader"
	_ "github.com/nsqio/nsq/bench/bench_writer"
)
