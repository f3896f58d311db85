package childrun

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Helpers for rewriting a scenario's YAML as nodes (a step of a search, a scaled study),
// so comments, order and styles the user wrote stay as written.

// ParseDoc is the scenario text src (read from file) as its top mapping, aliases expanded
// (Expand), so parts can be dropped without leaving an alias without its anchor.
func ParseDoc(src []byte, file string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: not a YAML document", file)
	}
	root := Expand(doc.Content[0], 0)
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a mapping", file)
	}
	return root, nil
}

// Expand copies n with every alias replaced by a copy of its anchor's node.
func Expand(n *yaml.Node, depth int) *yaml.Node {
	if n == nil || depth > 64 {
		return nil
	}
	if n.Kind == yaml.AliasNode {
		return Expand(n.Alias, depth+1)
	}
	c := *n
	c.Anchor = ""
	if c.Kind == yaml.ScalarNode && c.Tag == "!!merge" {
		c.Tag = "" // "<<" resolves to a merge key by itself
	}
	c.Content = make([]*yaml.Node, 0, len(n.Content))
	for _, k := range n.Content {
		if e := Expand(k, depth+1); e != nil {
			c.Content = append(c.Content, e)
		}
	}
	return &c
}

// Get is the value of key in the mapping m (nil when m is not a mapping or lacks it).
func Get(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i].Tag != "!!merge" {
			return m.Content[i+1]
		}
	}
	return nil
}

// Set replaces the value of key in the mapping m, or appends the pair. An explicit key wins
// over one a merge key ("<<") brings, as in the scenario parser.
func Set(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i].Tag != "!!merge" {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, Str(key), v)
}

// Del removes key and its value from the mapping m.
func Del(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i].Tag != "!!merge" {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

// Str is a string scalar.
func Str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
