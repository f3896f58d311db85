// Package redact removes credentials from broker addresses before they are printed, stored in
// results or used as tags. Every driver, the runner and the test helpers use it, so there is
// one behaviour to test: user info (passwords may hold '@', ':' or '/'), several servers in
// one comma-separated URL (NATS), and secrets passed as query parameters.
package redact

import (
	"net/url"
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
// URL, for error messages from client libraries that echo what they were given.
func Text(s, raw string) string {
	if raw == "" {
		return s
	}
	s = strings.ReplaceAll(s, raw, URL(raw))
	for _, p := range strings.Split(raw, ",") {
		if u, err := url.Parse(strings.TrimSpace(p)); err == nil && u.User != nil {
			if pw, ok := u.User.Password(); ok && len(pw) >= 4 {
				s = strings.ReplaceAll(s, pw, "REDACTED")
			}
		}
	}
	return s
}
