package search

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

// stepScenario rewrites the scenario text src (read from file) into a one-cell scenario for a
// step: the cell at index with its id as name, its rate fixed, its duration the step's, its
// message count removed; the search block dropped; a payload file replaced by payload, its copy
// in the step's folder (stepPayload: a payload file must lie in its scenario's folder). Aliases
// are expanded first, so dropping the other cells cannot leave an alias without its anchor.
// Everything else (broker, workload, thresholds, validity) is kept as written, so the step is
// judged exactly as the scenario says.
func stepScenario(src []byte, file string, index int, id string, rate int, dur time.Duration, payload string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: not a YAML document", file)
	}
	root := expand(doc.Content[0], 0)
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a mapping", file)
	}
	del(root, "search")
	matrix := get(root, "matrix")
	if matrix == nil || matrix.Kind != yaml.SequenceNode || index >= len(matrix.Content) {
		return nil, fmt.Errorf("%s: no matrix[%d]", file, index)
	}
	cell := matrix.Content[index]
	if cell.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: matrix[%d] is not a mapping", file, index)
	}
	cell.Style = 0 // block style: the rewritten cell reads better
	del(cell, "messages")
	set(cell, "name", str(id))
	set(cell, "rate", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(rate)})
	set(cell, "duration", str(dur.String()))
	matrix.Content = []*yaml.Node{cell}
	if pl := get(get(root, "workload"), "payload"); pl != nil && payload != "" {
		if f := get(pl, "file"); f != nil && f.Kind == yaml.ScalarNode {
			set(pl, "file", str(payload))
		}
	}
	return root, nil
}

// stepComment heads a step's scenario file.
func stepComment(file string) string {
	return "A step of a capacity search: generated from " + file + " by `k6 x mqbench search`."
}

// expand copies n with every alias replaced by a copy of its anchor's node.
func expand(n *yaml.Node, depth int) *yaml.Node {
	if n == nil || depth > 64 {
		return nil
	}
	if n.Kind == yaml.AliasNode {
		return expand(n.Alias, depth+1)
	}
	c := *n
	c.Anchor = ""
	if c.Kind == yaml.ScalarNode && c.Tag == "!!merge" {
		c.Tag = "" // "<<" resolves to a merge key by itself
	}
	c.Content = make([]*yaml.Node, 0, len(n.Content))
	for _, k := range n.Content {
		if e := expand(k, depth+1); e != nil {
			c.Content = append(c.Content, e)
		}
	}
	return &c
}

func get(m *yaml.Node, key string) *yaml.Node {
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

// set replaces the value of key in the mapping m, or appends the pair. An explicit key wins
// over one a merge key ("<<") brings, as in the scenario parser.
func set(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i].Tag != "!!merge" {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, str(key), v)
}

func del(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i].Tag != "!!merge" {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// stepPayload copies what a step's cell reads of the scenario's payload file (its first size
// bytes, as the payload package reads it) into the step's folder as name.
func stepPayload(src, dir, name string, size int) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.LimitReader(in, int64(max(size, 1)))); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
