// Package refgen builds package reference's data from the drivers themselves and renders it
// as docs/drivers.md and reference/zz_generated.go. Descriptions are the options structs'
// Go doc comments (read with go/parser), keys and types come from the structs by
// reflection, defaults from running each driver's Defaults on a fresh options value. It is
// used by `go generate` (reference/gen) and by the test that fails when those files are
// stale; the k6 binary does not import it.
package refgen

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	_ "github.com/mqbench/xk6-mqbench/internal/driver/all" // every driver registers itself
	"github.com/mqbench/xk6-mqbench/internal/reference"
)

// Doc is one broker's reference plus what only the Markdown page shows.
type Doc struct {
	reference.Broker
	Details string // the driver's package documentation after its first paragraph, as Markdown
}

// Root finds the repository root (the folder holding extensions/go.mod) from dir upwards.
func Root(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "extensions", "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("refgen: no extensions/go.mod above the working directory")
		}
		dir = parent
	}
}

// Build returns the reference of every registered driver, sorted by name. root is the
// repository root: the drivers' sources and the example scenarios are read from it.
func Build(root string) ([]Doc, error) {
	modDir := filepath.Join(root, "extensions")
	modPath, err := modulePath(modDir)
	if err != nil {
		return nil, err
	}
	summaries, err := importComments(filepath.Join(modDir, "internal", "driver", "all"))
	if err != nil {
		return nil, err
	}
	var docs []Doc
	for _, name := range driver.Names() {
		d, err := buildOne(root, modDir, modPath, name, summaries[name])
		if err != nil {
			return nil, fmt.Errorf("refgen: %s: %w", name, err)
		}
		docs = append(docs, d)
	}
	return docs, nil
}

func buildOne(root, modDir, modPath, name, summary string) (Doc, error) {
	spec, err := driver.Lookup(name)
	if err != nil {
		return Doc{}, err
	}
	n, ok := notes[name]
	if !ok {
		return Doc{}, errors.New("no entry in refgen/notes.go: add the broker's url forms, destination and example there")
	}
	if summary == "" {
		return Doc{}, errors.New("no `// name: summary` comment on its import in internal/driver/all")
	}
	if spec.NewOptions == nil {
		return Doc{}, errors.New("the driver registers no options")
	}
	t := reflect.TypeOf(spec.NewOptions()).Elem()
	pkgDir := filepath.Join(modDir, filepath.FromSlash(strings.TrimPrefix(t.PkgPath(), modPath+"/")))
	src, err := parsePackage(pkgDir)
	if err != nil {
		return Doc{}, err
	}
	// Blocks every driver shares (driver.TLS) are documented once, in package driver.
	shared, err := parsePackage(filepath.Join(modDir, "internal", "driver"))
	if err != nil {
		return Doc{}, err
	}
	src.adopt(shared)
	about, details := splitPackageDoc(src.pkgDoc, src.pkgName)
	b := reference.Broker{
		Name:        name,
		Summary:     summary,
		About:       about,
		DefaultURL:  spec.DefaultURL,
		URL:         n.url,
		URLExamples: n.urlExamples,
		Destination: n.destination,
		ModeKey:     n.modeKey,
		Example:     n.example,
	}
	example, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(n.example)))
	if err != nil {
		return Doc{}, fmt.Errorf("example scenario: %w", err)
	}
	b.ExampleYAML = string(example)

	if b.Modes, err = modes(spec, n); err != nil {
		return Doc{}, err
	}
	w := walker{spec: spec, notes: n, src: src, used: map[string]bool{}}
	if err := w.walk(t, t.Name(), "", nil); err != nil {
		return Doc{}, err
	}
	for k := range n.keys {
		if !w.used[k] {
			return Doc{}, fmt.Errorf("refgen/notes.go names %q, which the options block does not have", k)
		}
	}
	b.Options = w.rows
	replaceGoNames(b.Options, w.goNames)
	return Doc{Broker: b, Details: details}, nil
}

// modes lists the values of the broker's mode key with what each makes publish latency
// wait for, asking the driver's own AckMode and PromisesDelivery.
func modes(spec driver.Spec, n brokerNotes) ([]reference.Mode, error) {
	names := []string{""}
	if n.modeKey != "" {
		names = n.keys[n.modeKey].values
		if len(names) == 0 {
			return nil, fmt.Errorf("mode key %q has no values in refgen/notes.go", n.modeKey)
		}
	}
	var out []reference.Mode
	for _, m := range names {
		o, err := optionsIn(spec, n.modeKey, m)
		if err != nil {
			return nil, err
		}
		out = append(out, reference.Mode{Name: m, AckMode: string(o.AckMode()), Promises: driver.Has(spec.PromisesDelivery, o)})
	}
	return out, nil
}

// optionsIn returns fresh options with modeKey set to mode (nothing set when modeKey is ""),
// after the driver's Defaults.
func optionsIn(spec driver.Spec, modeKey, mode string) (driver.Options, error) {
	o := spec.NewOptions()
	if modeKey != "" && mode != "" {
		if err := yaml.Unmarshal([]byte(modeKey+": "+mode), o); err != nil {
			return nil, fmt.Errorf("setting %s %s: %w", modeKey, mode, err)
		}
	}
	o.Defaults()
	return o, nil
}

var (
	nodeType     = reflect.TypeOf(yaml.Node{})
	durationType = reflect.TypeOf(time.Duration(0))
)

// walker turns an options struct into rows, depth first in declaration order.
type walker struct {
	spec    driver.Spec
	notes   brokerNotes
	src     *source
	rows    []reference.Option
	used    map[string]bool
	goNames map[string]string // Go field or type name → YAML key, to rewrite descriptions
}

func (w *walker) walk(t reflect.Type, typeName, prefix string, index []int) error {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case !f.IsExported():
			continue
		case strings.Contains(","+opts+",", ",inline,"):
			return fmt.Errorf("%s.%s: inline options are not supported by the reference", typeName, f.Name)
		case f.Type == nodeType && hasCompanion(t, f.Name):
			continue // the raw form of a `yaml:"-"` field: documented with that field
		case tag == "-":
			// Decoded through its companion yaml.Node field (Acks ← AcksNode): the key is the
			// companion's, the meaning and the children are this field's.
			c, ok := t.FieldByName(f.Name + "Node")
			if !ok || c.Type != nodeType {
				continue // not part of the file format
			}
			name, _, _ = strings.Cut(c.Tag.Get("yaml"), ",")
		}
		if name == "" {
			name = strings.ToLower(f.Name) // yaml.v3's default
		}
		key := prefix + name
		if err := w.row(f, typeName, key, append(slices.Clone(index), i)); err != nil {
			return err
		}
		if st := structOf(f.Type); st != nil {
			if err := w.walk(st, st.Name(), key+".", append(slices.Clone(index), i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *walker) row(f reflect.StructField, typeName, key string, index []int) error {
	n := w.notes.keys[key]
	w.used[key] = true
	if w.goNames == nil {
		w.goNames = map[string]string{}
	}
	short := key[strings.LastIndex(key, ".")+1:]
	w.goNames[f.Name] = short
	doc := w.src.fieldDocs[typeName+"."+f.Name]
	if doc == "" {
		if st := structOf(f.Type); st != nil {
			doc = w.src.typeDocs[st.Name()]
			w.goNames[st.Name()] = short
		}
	}
	if doc == "" {
		return fmt.Errorf("%s.%s (%s) has no doc comment: document the option in the driver", typeName, f.Name, key)
	}
	typ := n.typ
	if typ == "" {
		typ = typeWord(f.Type)
	}
	if typ == "" {
		return fmt.Errorf("%s (%s): no YAML type for Go type %s; give one in refgen/notes.go", key, f.Name, f.Type)
	}
	def := n.def
	if def == "" && structOf(f.Type) == nil {
		mode := ""
		if len(n.modes) > 0 {
			mode = n.modes[0]
		}
		o, err := optionsIn(w.spec, w.notes.modeKey, mode)
		if err != nil {
			return err
		}
		v, err := reflect.ValueOf(o).Elem().FieldByIndexErr(index)
		if err != nil {
			v = reflect.Zero(f.Type) // inside a block that is off by default
		}
		def = defaultWord(v)
	}
	w.rows = append(w.rows, reference.Option{
		Key: key, Type: typ, Default: def,
		Values: n.values, Min: n.min, Max: n.max, Rule: n.rule, Modes: n.modes,
		Description: doc,
	})
	return nil
}

func hasCompanion(t reflect.Type, nodeField string) bool {
	base, ok := strings.CutSuffix(nodeField, "Node")
	if !ok {
		return false
	}
	f, ok := t.FieldByName(base)
	return ok && f.Tag.Get("yaml") == "-"
}

// structOf returns the struct type of a block field (a struct or a pointer to one).
func structOf(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct && t != nodeType {
		return t
	}
	return nil
}

// typeWord says how a Go type is written in YAML ("" when it has no plain form).
func typeWord(t reflect.Type) string {
	if t == durationType {
		return "duration"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return typeWord(t.Elem())
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Map:
		return "map of " + typeWord(t.Key()) + " to " + typeWord(t.Elem())
	case reflect.Slice:
		return "list of " + typeWord(t.Elem())
	case reflect.Struct:
		if t != nodeType {
			return "block"
		}
	}
	return ""
}

// defaultWord renders a defaulted value as a scenario would write it.
func defaultWord(v reflect.Value) string {
	if v.Type() == durationType {
		return fmt.Sprint(v.Interface())
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return "none"
		}
		return defaultWord(v.Elem())
	case reflect.String:
		if v.String() == "" {
			return "none"
		}
		return v.String()
	case reflect.Slice:
		if v.Len() == 0 {
			return "none"
		}
		var parts []string
		for i := 0; i < v.Len(); i++ {
			parts = append(parts, fmt.Sprint(v.Index(i).Interface()))
		}
		return strings.Join(parts, ", ")
	case reflect.Map:
		if v.Len() == 0 {
			return "none"
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%v: %v", k, v.MapIndex(k)))
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(v.Interface())
}

// WriteChanged writes want to path unless the file holds it already (a generator then leaves
// the file's time alone), says so on stdout, and makes path's folder when missing.
func WriteChanged(path string, want []byte) error {
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, want) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, want, 0o644); err != nil {
		return err
	}
	fmt.Println("wrote", path)
	return nil
}
