package scenario

import (
	"os"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// envRef is ${NAME} in any scalar value: credentials and per-environment values (a
// destination per stage, a rate per pipeline) come from the environment, so the file can be
// committed and shared. The expanded value is validated like a written one.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandEnv replaces every ${NAME} in s by the variable's value and lists unset names.
func expandEnv(s string) (string, []string) {
	var missing []string
	out := envRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := envRef.FindStringSubmatch(ref)[1]
		v, ok := os.LookupEnv(name)
		if !ok {
			missing = append(missing, name)
		}
		return v
	})
	return out, missing
}

func joinNames(names []string) string { return strings.Join(names, ", ") }

// expandTree expands ${NAME} in every scalar value of the tree (not in keys), before it is
// decoded, so `rate: ${RATE}` (or "${RATE}") is an integer and `destination: orders.${STAGE}` a string. An
// unset variable is a problem at its value; the value is then left as written.
func (d *decoder) expandTree(n *yaml.Node, path string, seen map[*yaml.Node]bool) {
	if n == nil || seen[n] {
		return // an alias's target is expanded once, where it is anchored
	}
	seen[n] = true
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for i, c := range n.Content {
			p := path
			if n.Kind == yaml.SequenceNode {
				p = path + "[" + strconv.Itoa(i) + "]"
			}
			d.expandTree(c, p, seen)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			d.expandTree(n.Content[i+1], join(path, n.Content[i].Value), seen)
		}
	case yaml.ScalarNode:
		if !strings.Contains(n.Value, "${") {
			return
		}
		v, missing := expandEnv(n.Value)
		if len(missing) > 0 {
			d.add(n, path, "environment variable %s is not set (the value refers to it as ${%s})", joinNames(missing), missing[0])
			d.unset[n] = true // reported once: decoding skips the value
			return
		}
		if msg := secretMisplaced(n.Value, path); msg != "" {
			d.add(n, path, "%s", msg)
			d.unset[n] = true
			return
		}
		// Typed as if the value had been written unquoted, quoted or not (in a flow mapping
		// "${RATE}" must be quoted); a string field takes it whatever its type (decode.go).
		n.Value, n.Tag, n.Style = v, plainTag(v), 0
		d.expanded[n] = true
	}
}

// plainTag is the tag YAML gives v written unquoted (!!int for 3000, !!str for 5ms).
func plainTag(v string) string {
	var doc yaml.Node
	if yaml.Unmarshal([]byte(v), &doc) != nil || len(doc.Content) != 1 {
		return strTag
	}
	if c := doc.Content[0]; c.Kind == yaml.ScalarNode && c.Style == 0 {
		return c.ShortTag()
	}
	return strTag
}

// EnvNames lists the variables the ${NAME} references in the tree's scalar values name, in
// file order (the k8s generator asks for a Secret holding them).
func EnvNames(n *yaml.Node) []string {
	var names []string
	seen := map[*yaml.Node]bool{}
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if n.Kind == yaml.ScalarNode {
			for _, m := range envRef.FindAllStringSubmatch(n.Value, -1) {
				names = append(names, m[1])
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return names
}
