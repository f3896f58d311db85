package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
)

var errLibNoServers = errors.New("lib: no servers available")

func TestIsUnreachable(t *testing.T) {
	_, dialErr := net.Dial("tcp", "127.0.0.1:1") // nothing listens on port 1
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"refused dial", dialErr, true},
		{"wrapped refused", fmt.Errorf("connect: %w", syscall.ECONNREFUSED), true},
		{"reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"closed before the reply", fmt.Errorf("handshake: %w", io.EOF), true},
		{"truncated reply", io.ErrUnexpectedEOF, true},
		{"timeout", fmt.Errorf("dial: %w", context.DeadlineExceeded), true},
		{"library's own", fmt.Errorf("x: %w", errLibNoServers), true},
		{"broker said no", errors.New("ACCESS_REFUSED - Login was refused"), false},
		{"nil", nil, false},
	} {
		if got := IsUnreachable(c.err, errLibNoServers); got != c.want {
			t.Errorf("%s: IsUnreachable(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}
