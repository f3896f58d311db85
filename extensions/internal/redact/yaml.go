package redact

import (
	"errors"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// A scenario's text leaves the machine that ran it (a shard's scenario_yaml, read by the
// merge and kept as an artifact): credentials written in it literally must not. ${NAME}
// references are kept, so the copy still says where the credentials come from.

// onlyRefs matches a value made of ${NAME} references alone (or nothing).
var onlyRefs = regexp.MustCompile(`^(\$\{[A-Za-z_][A-Za-z0-9_]*\})*$`)

// secretKeys are scenario keys whose value is a credential itself.
var secretKeys = []string{"password", "passwd", "pass", "token", "secret", "api_key", "apikey", "access_key", "secret_key", "sasl_password"}

// YAML returns the scenario text with every literal credential replaced by REDACTED: the user
// info and secret query values of url and *_url values (each server of a comma list), and
// the values of credential keys (password, token, secret…). Text without any is returned
// as it was; otherwise re-encoded (comments kept, layout YAML's own).
func YAML(raw []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, errors.New("the scenario text does not parse as YAML")
	}
	if !scrub(&doc, "", map[*yaml.Node]bool{}) {
		return raw, nil
	}
	return yaml.Marshal(&doc)
}

// scrub redacts the tree under n, whose key (the nearest mapping key above) is key, and
// says whether it changed anything.
func scrub(n *yaml.Node, key string, seen map[*yaml.Node]bool) bool {
	if n == nil || seen[n] {
		return false
	}
	seen[n] = true
	changed := false
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			changed = scrub(c, key, seen) || changed
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			changed = scrub(n.Content[i+1], n.Content[i].Value, seen) || changed
		}
	case yaml.ScalarNode:
		k, v := strings.ToLower(key), n.Value
		switch {
		case k == "url" || strings.HasSuffix(k, "_url"):
			v = literalURL(n.Value)
		case isSecretKey(k) && !onlyRefs.MatchString(n.Value):
			v = "REDACTED"
		}
		if v != n.Value {
			n.Value = v
			return true
		}
	}
	return changed
}

func isSecretKey(k string) bool {
	for _, s := range secretKeys {
		if k == s || strings.HasSuffix(k, "_"+s) {
			return true
		}
	}
	return false
}

// literalURL replaces the literal user, password and secret query values of each server of
// raw by REDACTED; parts made of ${NAME} references stay.
func literalURL(raw string) string {
	parts := strings.Split(raw, ",")
	for i, p := range parts {
		parts[i] = literalServer(p)
	}
	return strings.Join(parts, ",")
}

func literalServer(p string) string {
	prefix, rest := "", p
	if s, r, ok := strings.Cut(p, "://"); ok {
		prefix, rest = s+"://", r
	}
	if at := lastAtInAuthority(rest); at >= 0 {
		user, pass, hasPass := strings.Cut(rest[:at], ":")
		info := keepRef(user)
		if hasPass {
			info += ":" + keepRef(pass)
		}
		rest = info + rest[at:]
	}
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		query, frag := rest[q+1:], ""
		if h := strings.IndexByte(query, '#'); h >= 0 {
			query, frag = query[:h], query[h:]
		}
		params := strings.Split(query, "&")
		for j, kv := range params {
			if k, v, ok := strings.Cut(kv, "="); ok && isSecret(k) {
				params[j] = k + "=" + keepRef(v)
			}
		}
		rest = rest[:q+1] + strings.Join(params, "&") + frag
	}
	return prefix + rest
}

// keepRef is s when it is made of ${NAME} references (or empty), else REDACTED.
func keepRef(s string) string {
	if onlyRefs.MatchString(s) {
		return s
	}
	return "REDACTED"
}
