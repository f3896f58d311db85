package k8s

import (
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// A scenario goes into a ConfigMap, which anyone who may read the namespace's objects reads:
// a password written into a broker url would be stored there in the clear. The generator
// refuses it (rather than strip it, which would leave the pods a url that cannot log in):
// the password belongs in a Secret, named in the url as ${VAR}.

// varRef is a whole value taken from the environment: ${NAME}.
var varRef = regexp.MustCompile(`^\$\{[A-Za-z_][A-Za-z0-9_]*\}$`)

// secretParam is a url query parameter that carries a credential.
var secretParam = regexp.MustCompile(`(?i)pass|pwd|secret|token|credential|apikey|api_key|access_key`)

// LiteralSecrets lists the fields of a scenario's broker block (url, and any *_url option)
// that hold a literal password: in a url's user info or in a query parameter, and not
// ${VAR}. The values themselves are never returned.
func LiteralSecrets(raw []byte) []string {
	var doc yaml.Node
	if yaml.Unmarshal(raw, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	var out []string
	walkURLs(lookup(doc.Content[0], "broker"), "broker", 0, &out)
	return out
}

func walkURLs(n *yaml.Node, path string, depth int, out *[]string) {
	if n == nil || n.Kind != yaml.MappingNode || depth > 16 {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		switch {
		case v.Kind == yaml.MappingNode:
			walkURLs(v, path+"."+k, depth+1, out)
		case v.Kind == yaml.ScalarNode && (k == "url" || strings.HasSuffix(k, "_url")) && literalSecret(v.Value):
			*out = append(*out, path+"."+k)
		}
	}
}

// literalSecret reports whether a url (or a comma-separated list of them) carries a
// password that is not ${VAR}.
func literalSecret(urls string) bool {
	for _, u := range strings.Split(urls, ",") {
		u = strings.TrimSpace(u)
		_, rest, ok := strings.Cut(u, "://")
		if !ok {
			rest = u
		}
		authority, query := rest, ""
		if i := strings.IndexAny(rest, "/?#"); i >= 0 {
			authority = rest[:i]
		}
		if _, q, ok := strings.Cut(rest, "?"); ok {
			query, _, _ = strings.Cut(q, "#")
		}
		if at := strings.LastIndexByte(authority, '@'); at >= 0 {
			if _, pw, ok := strings.Cut(authority[:at], ":"); ok && pw != "" && !varRef.MatchString(pw) {
				return true
			}
		}
		for _, kv := range strings.Split(query, "&") {
			k, v, _ := strings.Cut(kv, "=")
			if secretParam.MatchString(k) && v != "" && !varRef.MatchString(v) {
				return true
			}
		}
	}
	return false
}
