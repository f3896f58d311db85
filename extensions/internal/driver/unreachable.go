package driver

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
)

// IsUnreachable tells "could not reach a broker" (nothing answered: refused, reset, timed
// out, closed before a reply) from "a broker answered with an error". extra are a client
// library's own errors that mean the same (nats.ErrNoServers, …).
func IsUnreachable(err error, extra ...error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	for _, e := range extra {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
