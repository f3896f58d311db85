package scenario

import (
	"slices"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
)

// maxFileNameDepth bounds the walk (the decoder's own budget bounds the document).
const maxFileNameDepth = 64

// fileNames refuses a control character in any file name the scenario writes (payload.file
// and every key ending in _file, also inside blocks a driver decodes itself): such a name
// reaches logs, reports and generated scripts (k6 x mqbench k8s), where a newline becomes a
// new line. The name itself is not repeated.
func (d *decoder) fileNames() {
	d.walkFileNames(d.vals[""], "", 0)
}

func (d *decoder) walkFileNames(n *yaml.Node, path string, depth int) {
	if n == nil || n.Kind != yaml.MappingNode || depth > maxFileNameDepth {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		fp := join(path, k)
		if v.Kind == yaml.AliasNode && v.Alias != nil && v.Alias.Kind == yaml.ScalarNode {
			v = v.Alias
		}
		switch {
		case v.Kind == yaml.MappingNode:
			d.walkFileNames(v, fp, depth+1)
		case v.Kind != yaml.ScalarNode:
		case !strings.HasSuffix(k, "_file") && fp != "workload.payload.file":
		case strings.ContainsFunc(v.Value, unicode.IsControl):
			// A driver's own problem with this file (cannot read it) would print the name raw.
			d.problems = slices.DeleteFunc(d.problems, func(p Problem) bool { return p.Field == fp })
			d.errorf(fp, "a file name must not contain a control character (a newline, tab or escape)")
		}
	}
}
