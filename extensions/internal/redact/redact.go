// Package redact removes credentials from broker addresses before they are printed, stored in
// results or used as tags. Every driver, the runner and the test helpers use it, so there is
// one behaviour to test: user info (passwords may hold '@', ':' or '/'), several servers in
// one comma-separated URL (NATS), and secrets passed as query parameters.
package redact

import (
	"net/url"
	"strconv"
	"strings"
)

// secretParams are query parameters whose values are credentials (compared case-insensitively).
var secretParams = []string{"password", "pass", "passwd", "pwd", "secret", "token", "auth", "access_key", "secret_key", "sasl_password", "apikey", "api_key", "key"}

// URL returns raw without credentials: user info dropped, secret query values replaced by
// "REDACTED", each server of a comma-separated list handled alone. Text that does not parse
// as a URL still loses everything up to the last '@' of its authority.
func URL(raw string) string {
	if strings.Contains(raw, ",") {
		parts := strings.Split(raw, ",")
		for i, p := range parts {
			parts[i] = one(strings.TrimSpace(p))
		}
		return strings.Join(parts, ",")
	}
	return one(raw)
}

func one(raw string) string {
	scheme, rest, hasScheme := strings.Cut(raw, "://")
	if !hasScheme {
		scheme, rest = "", raw
	}
	// The authority ends at the first '/', '?' or '#' after the last '@' (a password may
	// contain '/' or '?', so look for '@' first).
	authEnd := len(rest)
	if at := lastAtInAuthority(rest); at >= 0 {
		rest = rest[at+1:]
		authEnd = len(rest)
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authEnd = i
	}
	host, tail := rest[:authEnd], rest[authEnd:]
	if q := strings.IndexByte(tail, '?'); q >= 0 {
		path, query, frag := tail[:q], tail[q+1:], ""
		if h := strings.IndexByte(query, '#'); h >= 0 {
			query, frag = query[:h], query[h:]
		}
		tail = path + "?" + redactQuery(query) + frag
	}
	if hasScheme {
		return scheme + "://" + host + tail
	}
	return host + tail
}

// lastAtInAuthority finds the '@' that ends user info: the last one before the path or
// query that follows the host (a '@' inside a query value is not user info).
func lastAtInAuthority(s string) int {
	at := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '@':
			at = i
		case '?', '#':
			// A '@' further on is user info only if what lies between does not look like a
			// query ("?user=me&pass=a@b" is a query; "pa?ss@host" a password with a '?').
			j := strings.IndexByte(s[i:], '@')
			if at >= 0 || j < 0 || strings.ContainsAny(s[i:i+j], "=&") {
				return at
			}
		}
	}
	return at
}

func redactQuery(q string) string {
	if q == "" {
		return q
	}
	parts := strings.Split(q, "&")
	for i, p := range parts {
		k, _, hasValue := strings.Cut(p, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			key = k
		}
		if hasValue && isSecret(key) {
			parts[i] = k + "=REDACTED"
		}
	}
	return strings.Join(parts, "&")
}

func isSecret(key string) bool {
	key = strings.ToLower(key)
	for _, s := range secretParams {
		if key == s || strings.HasSuffix(key, "_"+s) || strings.HasSuffix(key, "."+s) {
			return true
		}
	}
	return false
}

// Text replaces every occurrence of the raw URL (and of its password) in s by the redacted
// URL, for error messages from client libraries that echo what they were given: as given,
// as Go quotes it (%q spells control characters out) and percent-decoded; whatever else
// looks like scheme://user:password@ goes through Secrets.
func Text(s, raw string) string {
	if raw == "" {
		return Secrets(s)
	}
	s = strings.ReplaceAll(s, raw, URL(raw))
	if q := strconv.Quote(raw); q[1:len(q)-1] != raw {
		s = strings.ReplaceAll(s, q[1:len(q)-1], URL(raw))
	}
	for _, p := range strings.Split(raw, ",") {
		for _, pw := range passwords(strings.TrimSpace(p)) {
			if len(pw) >= 4 {
				s = strings.ReplaceAll(s, pw, "REDACTED")
			}
		}
	}
	return Secrets(s)
}

// passwords are the spellings of one server's password: as written, percent-decoded when
// that works, and as Go quotes it. Found without url.Parse, which refuses a bad %-escape or a
// control character (and then its error would quote the URL whole).
func passwords(server string) []string {
	_, rest, ok := strings.Cut(server, "://")
	if !ok {
		rest = server
	}
	at := lastAtInAuthority(rest)
	if at < 0 {
		return nil
	}
	_, pw, ok := strings.Cut(rest[:at], ":")
	if !ok || pw == "" {
		return nil
	}
	out := []string{pw}
	if d, err := url.PathUnescape(pw); err == nil && d != pw {
		out = append(out, d)
	}
	if q := strconv.Quote(pw); q[1:len(q)-1] != pw {
		out = append(out, q[1:len(q)-1])
	}
	return out
}

// Secrets removes credentials from free text without knowing the URL: every
// scheme://…@host up to the next blank loses its user info and its secret query values,
// as URL does. For errors that may quote an address the caller no longer has.
func Secrets(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		start := i
		for start > 0 && isSchemeByte(s[start-1]) {
			start--
		}
		end := i + 3
		for end < len(s) && !isBlank(s[end]) {
			end++
		}
		b.WriteString(s[:start])
		b.WriteString(URL(s[start:end]))
		s = s[end:]
	}
}

func isSchemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
