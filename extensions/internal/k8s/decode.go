package k8s

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Manifests is a decoded YAML stream of the kinds the generator writes.
type Manifests struct {
	TestRuns   []TestRun
	ConfigMaps []ConfigMap
	PVCs       []PVC
	Jobs       []Job
}

// kinds maps apiVersion/kind to where a document of that kind is decoded.
func (m *Manifests) target(h header) (any, bool) {
	switch h.APIVersion + "/" + h.Kind {
	case "k6.io/v1alpha1/TestRun":
		m.TestRuns = append(m.TestRuns, TestRun{})
		return &m.TestRuns[len(m.TestRuns)-1], true
	case "v1/ConfigMap":
		m.ConfigMaps = append(m.ConfigMaps, ConfigMap{})
		return &m.ConfigMaps[len(m.ConfigMaps)-1], true
	case "v1/PersistentVolumeClaim":
		m.PVCs = append(m.PVCs, PVC{})
		return &m.PVCs[len(m.PVCs)-1], true
	case "batch/v1/Job":
		m.Jobs = append(m.Jobs, Job{})
		return &m.Jobs[len(m.Jobs)-1], true
	}
	return nil, false
}

// Decode reads a YAML stream strictly: every field must be one the types of this package
// declare (so a misspelt field is an error naming it, with its path and line), every
// string must be a YAML string (the API server decodes manifests as JSON, where `value: 2`
// is a number and is refused), and numbers and booleans must be written as such.
func Decode(stream []byte) (*Manifests, error) {
	m := &Manifests{}
	var problems []string
	dec := yaml.NewDecoder(bytes.NewReader(stream))
	for i := 1; ; i++ {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %v", i, err)
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].Tag == "!!null" {
			continue // an empty document (a trailing ---)
		}
		root := doc.Content[0]
		var h header
		if err := root.Decode(&h); err != nil {
			problems = append(problems, fmt.Sprintf("document %d (line %d): %v", i, root.Line, err))
			continue
		}
		what := fmt.Sprintf("document %d (%s)", i, h.Kind)
		v, ok := m.target(h)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: apiVersion %q kind %q is not one the generator writes (v1 ConfigMap, v1 PersistentVolumeClaim, batch/v1 Job, k6.io/v1alpha1 TestRun)", what, h.APIVersion, h.Kind))
			continue
		}
		if bad := walk(root, reflect.TypeOf(v).Elem(), ""); len(bad) > 0 {
			for _, b := range bad {
				problems = append(problems, what+": "+b)
			}
			continue
		}
		// The walk found nothing, so this strict decode cannot fail on a field; it is the
		// decode itself (and a second guard should the walk and the types ever disagree).
		raw, err := yaml.Marshal(root)
		if err == nil {
			d := yaml.NewDecoder(bytes.NewReader(raw))
			d.KnownFields(true)
			err = d.Decode(v)
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", what, err))
		}
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	return m, nil
}

// walk compares a YAML node with the Go type it decodes into and lists, with the field's
// path and line, every field the type does not have and every scalar of the wrong kind.
func walk(n *yaml.Node, t reflect.Type, path string) []string {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	at := func(format string, a ...any) []string {
		p := path
		if p == "" {
			p = "(document)"
		}
		return []string{fmt.Sprintf("%s: %s (line %d)", p, fmt.Sprintf(format, a...), n.Line)}
	}
	var out []string
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return at("expected a mapping")
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			f, ok := fields[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s: unknown field %q (line %d; known: %s)", join(path, k), k, n.Content[i].Line, strings.Join(slices.Sorted(maps.Keys(fields)), ", ")))
				continue
			}
			out = append(out, walk(n.Content[i+1], f, join(path, k))...)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return at("expected a mapping")
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			out = append(out, walk(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value))...)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return at("expected a list")
		}
		for i, c := range n.Content {
			out = append(out, walk(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i))...)
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
			return at("expected a string, got %s (quote it)", describe(n))
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			return at("expected true or false, got %s", describe(n))
		}
	case reflect.Int32, reflect.Int64, reflect.Int:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			return at("expected an integer, got %s", describe(n))
		}
	}
	return out
}

func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%s %q", strings.TrimPrefix(n.ShortTag(), "!!"), n.Value)
	}
	return map[yaml.Kind]string{yaml.MappingNode: "a mapping", yaml.SequenceNode: "a list"}[n.Kind]
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// yamlFields maps a struct's YAML field names to their types.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			out[name] = f.Type
		}
	}
	return out
}
