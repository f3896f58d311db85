package natsdrv

import (
	"fmt"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// checkURL: one or more servers, nats://, tls://, ws:// or wss:// (or host:port).
func checkURL(raw string) error {
	if strings.EqualFold(strings.TrimSpace(raw), "embedded") {
		return nil
	}
	return driver.CheckURLs(raw, "nats", "tls", "ws", "wss")
}

// checkSubject applies NATS's subject rules for a publisher: dot-separated tokens, none
// empty, and no wildcard ('*' matches one token and '>' the rest only when subscribing: a
// message cannot be published to them).
func checkSubject(subject string, _ driver.Options) error {
	if strings.HasPrefix(subject, ".") || strings.HasSuffix(subject, ".") || strings.Contains(subject, "..") {
		return fmt.Errorf("subject %q has an empty token (tokens are separated by single dots, none at either end)", subject)
	}
	for _, tok := range strings.Split(subject, ".") {
		if strings.ContainsAny(tok, "*>") {
			return fmt.Errorf("subject %q has the wildcard token %q: a message cannot be published to a wildcard", subject, tok)
		}
	}
	return nil
}
