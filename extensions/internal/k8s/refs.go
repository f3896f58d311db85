package k8s

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// Refs is what a scenario file reads from outside itself, as written in the file: on a
// cluster each must come from the ConfigMap, a Secret, or a volume.
type Refs struct {
	Payload string   // workload.payload.file as written ("" = none)
	Env     []string // environment variables: ${NAME} in any value, broker.*.*_env values
	Files   []string // other paths under broker (e.g. Kafka's security.tls.ca_file)
}

// ScenarioRefs reads a (valid) scenario's references from its text.
func ScenarioRefs(raw []byte) Refs {
	var doc yaml.Node
	var r Refs
	if yaml.Unmarshal(raw, &doc) != nil || len(doc.Content) == 0 {
		return r
	}
	root := doc.Content[0]
	if n := lookup(root, "workload", "payload", "file"); n != nil {
		r.Payload = n.Value
	}
	r.Env = scenario.EnvNames(root)
	if b := lookup(root, "broker"); b != nil {
		brokerRefs(b, &r)
	}
	slices.Sort(r.Env)
	r.Env = slices.Compact(r.Env)
	return r
}

// brokerRefs walks the broker's option blocks: keys ending in _env name a variable (SASL
// credentials), keys ending in _file name a path.
func brokerRefs(n *yaml.Node, r *Refs) {
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		switch {
		case v.Kind == yaml.MappingNode:
			brokerRefs(v, r)
		case v.Kind != yaml.ScalarNode || v.Value == "":
		case strings.HasSuffix(k, "_env"):
			r.Env = append(r.Env, v.Value)
		case strings.HasSuffix(k, "_file"):
			r.Files = append(r.Files, v.Value)
		}
	}
}

// lookup follows mapping keys from n; nil when a key is missing.
func lookup(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}
