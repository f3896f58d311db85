package natsdrv

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/redact"
)

// checkURL: one or more servers, nats://, tls://, ws:// or wss:// (or host:port), each one
// a URL Go parses: the client parses them only when it connects, and its error then quotes
// the url whole, password included, into the console and every result file.
func checkURL(raw string) error {
	if strings.EqualFold(strings.TrimSpace(raw), "embedded") {
		return nil
	}
	if err := driver.CheckURLs(raw, "nats", "tls", "ws", "wss"); err != nil {
		return err
	}
	servers := strings.Split(raw, ",")
	for i, s := range servers {
		s = strings.TrimSpace(s)
		if !strings.Contains(s, "://") {
			s = "nats://" + s // as the client completes it
		}
		if _, err := url.Parse(s); err != nil {
			which := "server " + redact.URL(s)
			if len(servers) > 1 {
				which = "server " + strconv.Itoa(i+1) + " (" + redact.URL(s) + ")"
			}
			// The parser's own message quotes the URL or a piece of the password: not shown.
			why := "does not parse as a URL"
			switch {
			case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
				why = "holds a control character"
			case badEscape(s):
				why = "has a '%' not followed by two hex digits (write a '%' in a password as %25)"
			}
			return fmt.Errorf("%s %s", which, why)
		}
	}
	return nil
}

// badEscape says whether s has a '%' that does not start a %XX escape.
func badEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			return true
		}
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
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
