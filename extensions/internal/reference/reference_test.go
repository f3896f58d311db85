package reference_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/kafkadrv"
	"github.com/mqbench/xk6-mqbench/internal/driver/rabbitdrv"
	"github.com/mqbench/xk6-mqbench/internal/reference"
	"github.com/mqbench/xk6-mqbench/internal/reference/refgen"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

func build(t *testing.T) (string, []refgen.Doc) {
	t.Helper()
	root, err := refgen.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := refgen.Build(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, docs
}

// The committed docs/drivers.md and zz_generated.go are what the code gives today.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	root, docs := build(t)
	src, err := refgen.GoSource(docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want []byte
	}{
		{"docs/drivers.md", refgen.Markdown(docs)},
		{"extensions/internal/reference/zz_generated.go", src},
	} {
		have, err := os.ReadFile(filepath.Join(root, c.path))
		if err != nil {
			t.Errorf("%s: %v; run `%s`", c.path, err, refgen.Command)
			continue
		}
		if string(have) != string(c.want) {
			t.Errorf("%s is stale (%s); run `%s`", c.path, firstDiff(string(have), string(c.want)), refgen.Command)
		}
	}
	var built []reference.Broker
	for _, d := range docs {
		built = append(built, d.Broker)
	}
	if !reflect.DeepEqual(built, reference.Brokers()) {
		t.Errorf("reference.Brokers() differs from what the drivers give; run `%s`", refgen.Command)
	}
}

func firstDiff(have, want string) string {
	h, w := strings.Split(have, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(h) || i < len(w); i++ {
		var hl, wl string
		if i < len(h) {
			hl = h[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if hl != wl {
			return fmt.Sprintf("line %d: have %q, want %q", i+1, hl, wl)
		}
	}
	return "same lines"
}

// Every key the scenario decoder accepts inside broker.<type> has a row, and every row is a
// key the decoder accepts (or, for rows decoded from a raw yaml.Node, its driver does).
func TestRowsAreExactlyTheDecodedKeys(t *testing.T) {
	for _, b := range reference.Brokers() {
		spec, err := driver.Lookup(b.Name)
		if err != nil {
			t.Fatal(err)
		}
		want := decodedKeys(reflect.TypeOf(spec.NewOptions()).Elem(), "")
		var have []string
		for _, o := range b.Options {
			have = append(have, o.Key)
		}
		sort.Strings(want)
		sort.Strings(have)
		if !slices.Equal(have, want) {
			t.Errorf("%s: rows %v\nwant the decoded keys %v", b.Name, have, want)
		}
		for _, o := range b.Options {
			if ps := parse(t, b.Name, block(o.Key, sample(o))); hasProblem(ps, b.Name, o.Key, "unknown field") {
				t.Errorf("%s: %s: the parser does not know this key: %v", b.Name, o.Key, ps)
			}
		}
		if ps := parse(t, b.Name, block("no_such_key", 1)); !hasProblem(ps, b.Name, "no_such_key", "unknown field") {
			t.Errorf("%s: an unknown key was accepted, so the check above proves nothing: %v", b.Name, ps)
		}
	}
}

// decodedKeys walks an options struct the way the scenario decoder does (exported fields,
// yaml tag or lower-cased name, `yaml:"-"` skipped). A yaml.Node field takes any value; when
// it is the raw form of a `yaml:"-"` field (AcksNode for Acks), that field's struct says
// which keys the driver reads from it.
func decodedKeys(t reflect.Type, prefix string) []string {
	nodeType := reflect.TypeOf(yaml.Node{})
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		keys = append(keys, prefix+name)
		ft := f.Type
		if ft == nodeType {
			base, _ := t.FieldByName(strings.TrimSuffix(f.Name, "Node"))
			ft = base.Type
		}
		if ft != nil && ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft != nil && ft.Kind() == reflect.Struct && ft != nodeType {
			keys = append(keys, decodedKeys(ft, prefix+name+".")...)
		}
	}
	return keys
}

// The example of every broker validates, and the two the task names say what they claim: a
// Kafka scenario with acks all and a RabbitMQ quorum queue.
func TestExamplesValidate(t *testing.T) {
	root, _ := build(t)
	for _, b := range reference.Brokers() {
		sc, err := scenario.Load(filepath.Join(root, b.Example))
		if err != nil {
			t.Errorf("%s: %v", b.Name, err)
			continue
		}
		if sc.Broker.Type != b.Name {
			t.Errorf("%s: the example %s is a %s scenario", b.Name, b.Example, sc.Broker.Type)
		}
		switch o := sc.Broker.Options.(type) {
		case *kafkadrv.Options:
			if o.Acks != "all" {
				t.Errorf("kafka example: acks %s, want all", o.Acks)
			}
		case *rabbitdrv.Options:
			if o.QueueType != "quorum" {
				t.Errorf("rabbitmq example: queue_type %s, want quorum", o.QueueType)
			}
		}
	}
}

func TestURLExamplesPassTheDriversCheck(t *testing.T) {
	for _, b := range reference.Brokers() {
		spec, _ := driver.Lookup(b.Name)
		for _, u := range append([]string{b.DefaultURL}, b.URLExamples...) {
			if spec.CheckURL == nil {
				break
			}
			if err := spec.CheckURL(u); err != nil {
				t.Errorf("%s: %s: %v", b.Name, u, err)
			}
		}
	}
}

// The overview's scenario keys are the scenario parser's top-level keys.
func TestTopLevelKeysMatchTheParser(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../scenario/raw.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "rawScenario" {
			return true
		}
		for _, fl := range ts.Type.(*ast.StructType).Fields.List {
			tag := reflect.StructTag(strings.Trim(fl.Tag.Value, "`")).Get("yaml")
			want = append(want, strings.Split(tag, ",")[0])
		}
		return false
	})
	var have []string
	for _, k := range reference.TopLevel {
		have = append(have, k.Name)
	}
	sort.Strings(want)
	sort.Strings(have)
	if len(want) == 0 || !slices.Equal(have, want) {
		t.Errorf("reference.TopLevel lists %v, the parser's rawScenario has %v", have, want)
	}
}

// The scenario reference names every broker in its broker.type row, README points to
// docs/drivers.md, and docs/layout.md has a row for every top-level folder.
func TestReadme(t *testing.T) {
	root, _ := build(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := os.ReadFile(filepath.Join(root, "docs", "scenario.md"))
	if err != nil {
		t.Fatal(err)
	}
	layoutDoc, err := os.ReadFile(filepath.Join(root, "docs", "layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(ref)
	var typeRow string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "| `broker.type` |") {
			typeRow = l
		}
	}
	for _, name := range reference.Names() {
		if !strings.Contains(typeRow, "`"+name+"`") {
			t.Errorf("docs/scenario.md's broker.type row does not name %s: %q", name, typeRow)
		}
	}
	if !strings.Contains(string(readme), "(docs/drivers.md)") {
		t.Error("README does not link docs/drivers.md")
	}
	layout := string(layoutDoc)
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() != ".git" && !strings.Contains(layout, "| `"+e.Name()+"/") && !strings.Contains(layout, ", `"+e.Name()+"/") {
			t.Errorf("docs/layout.md has no row for %s/", e.Name())
		}
	}
}
