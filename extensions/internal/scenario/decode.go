package scenario

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"
)

// The generic strict decoder. yaml.v3's own Decode stops at the first error, accepts some
// type coercions silently, ignores unknown keys unless KnownFields is set (and then still
// stops at the first), and does not report duplicate keys when decoding into a Node. A
// scenario is a contract that fails CI builds, so it is decoded here instead: by reflection on
// `yaml:"…"` tags, from the yaml.Node tree, recording every problem with its line and column
// and remembering where each field was written so later validation can point at it.

var (
	nodeType     = reflect.TypeOf(yaml.Node{})
	durationType = reflect.TypeOf(time.Duration(0))
)

// nodeBudget bounds how many nodes one file may make the decoder visit. Aliases are shared
// pointers in the node tree, so a few lines of anchors can expand exponentially
// ("billion laughs"); real scenarios visit a few hundred nodes.
const nodeBudget = 100_000

// maxDurationValue bounds every duration a scenario gives (30 days): longer is a typo,
// and near Go's limit (2562047h) sums of durations wrap negative further on.
const maxDurationValue = 30 * 24 * time.Hour

// maxMergeDepth bounds nested merge keys; an anchor can even merge itself.
const maxMergeDepth = 16

const (
	strTag       = "!!str"
	intTag       = "!!int"
	floatTag     = "!!float"
	boolTag      = "!!bool"
	nullTag      = "!!null"
	mergeTag     = "!!merge"
	timestampTag = "!!timestamp"
)

type decoder struct {
	file      string
	problems  []Problem
	vals      map[string]*yaml.Node // value node of every field path seen ("" is the root)
	keys      map[string]*yaml.Node // key node of every mapping entry seen
	bad       map[string]bool       // paths whose value failed to decode: validation skips them
	unset     map[*yaml.Node]bool   // values naming an unset ${VAR}, already reported
	expanded  map[*yaml.Node]bool   // values with a ${VAR}: a string field takes any scalar
	budget    int
	exhausted bool
}

func newDecoder(file string) *decoder {
	return &decoder{
		file:     file,
		vals:     map[string]*yaml.Node{},
		keys:     map[string]*yaml.Node{},
		bad:      map[string]bool{},
		unset:    map[*yaml.Node]bool{},
		expanded: map[*yaml.Node]bool{},
		budget:   nodeBudget,
	}
}

// add records a problem at n (line 1 when n carries no position, so every semantic problem
// can be jumped to).
func (d *decoder) add(n *yaml.Node, field, format string, args ...any) {
	line, col := 1, 1
	if n != nil && n.Line > 0 {
		line, col = n.Line, n.Column
	}
	d.problems = append(d.problems, Problem{File: d.file, Line: line, Col: col, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// errorf records a problem about the value at path, located at that value, or at the
// nearest enclosing field that was written when path itself was not.
func (d *decoder) errorf(path, format string, args ...any) {
	d.add(d.where(path), path, format, args...)
}

// missing records that a required field is absent, located at its parent's key (the
// "workload:" line) so the user sees which block lacks it.
func (d *decoder) missing(path string) {
	p := parentPath(path)
	n := d.keys[p]
	if n == nil {
		n = d.where(p)
	}
	d.add(n, path, "required")
}

func (d *decoder) where(path string) *yaml.Node {
	for {
		if n := d.vals[path]; n != nil {
			return n
		}
		if n := d.keys[path]; n != nil {
			return n
		}
		if path == "" {
			return nil
		}
		path = parentPath(path)
	}
}

// set reports whether the file wrote path; usable additionally that it decoded.
func (d *decoder) set(path string) bool    { return d.vals[path] != nil }
func (d *decoder) usable(path string) bool { return d.set(path) && !d.bad[path] }

func parentPath(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// resolve follows an alias to its anchored node.
func (d *decoder) resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode; i++ {
		if i > maxMergeDepth {
			return nil
		}
		n = n.Alias
	}
	return n
}

func (d *decoder) spend(n *yaml.Node) bool {
	if d.budget > 0 {
		d.budget--
		return true
	}
	if !d.exhausted {
		d.exhausted = true
		d.add(n, "", "document too large (more than %d nodes once aliases are expanded)", nodeBudget)
	}
	return false
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == nullTag }

// decode stores n into v (addressable), recording n as the value of path.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) bool {
	n = d.resolve(n)
	if n == nil || !d.spend(n) {
		d.bad[path] = true
		return false
	}
	d.vals[path] = n
	if d.unset[n] || !d.value(n, v, path) {
		d.bad[path] = true
		return false
	}
	return true
}

func (d *decoder) value(n *yaml.Node, v reflect.Value, path string) bool {
	t := v.Type()
	switch t {
	case nodeType:
		v.Set(reflect.ValueOf(*n))
		return true
	case durationType:
		return d.duration(n, v, path)
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		return d.value(n, v.Elem(), path)
	case reflect.Struct:
		return d.structValue(n, v, path)
	case reflect.Map:
		return d.mapValue(n, v, path)
	case reflect.Slice:
		return d.sliceValue(n, v, path)
	case reflect.String:
		if n.Kind != yaml.ScalarNode || (n.ShortTag() != strTag && n.ShortTag() != timestampTag && !d.expanded[n]) {
			return d.wrong(n, path, t)
		}
		v.SetString(n.Value)
		return true
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.ShortTag() != boolTag || n.Decode(&b) != nil {
			return d.wrong(n, path, t)
		}
		v.SetBool(b)
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var i int64
		if n.Kind != yaml.ScalarNode || n.ShortTag() != intTag {
			return d.wrong(n, path, t)
		}
		if n.Decode(&i) != nil || v.OverflowInt(i) {
			d.errorf(path, "integer %s is out of range", n.Value)
			return false
		}
		v.SetInt(i)
		return true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		var u uint64
		if n.Kind != yaml.ScalarNode || n.ShortTag() != intTag {
			return d.wrong(n, path, t)
		}
		if n.Decode(&u) != nil || v.OverflowUint(u) {
			d.errorf(path, "integer %s is out of range", n.Value)
			return false
		}
		v.SetUint(u)
		return true
	case reflect.Float32, reflect.Float64:
		var f float64
		if n.Kind != yaml.ScalarNode || (n.ShortTag() != floatTag && n.ShortTag() != intTag) || n.Decode(&f) != nil {
			return d.wrong(n, path, t)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) || v.OverflowFloat(f) {
			d.errorf(path, "number %s is out of range", n.Value)
			return false
		}
		v.SetFloat(f)
		return true
	}
	// A Go type this decoder does not handle is a programming error in an options struct;
	// report it rather than panic so the user still gets the rest of the file checked.
	d.errorf(path, "internal error: cannot decode into Go type %s", t)
	return false
}

// duration accepts Go duration strings ("30s", "1m30s", "250ms") and a bare 0. A bare number
// other than 0 is refused: "30" could mean seconds or milliseconds, and guessing wrong
// silently changes what a benchmark measures.
func (d *decoder) duration(n *yaml.Node, v reflect.Value, path string) bool {
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case strTag:
			dur, err := time.ParseDuration(strings.TrimSpace(n.Value))
			if err != nil {
				d.errorf(path, "expected a duration like 30s, 1m30s or 250ms, got %q", n.Value)
				return false
			}
			if dur > maxDurationValue {
				d.errorf(path, "must be at most %s (30 days), got %s", fmtDuration(maxDurationValue), fmtDuration(dur))
				return false
			}
			v.SetInt(int64(dur))
			return true
		case intTag, floatTag:
			if f, err := strconv.ParseFloat(n.Value, 64); err == nil && f == 0 {
				v.SetInt(0)
				return true
			}
			d.errorf(path, "expected a duration with a unit, like 30s or 250ms, got %s", n.Value)
			return false
		}
	}
	return d.wrong(n, path, durationType)
}

func (d *decoder) wrong(n *yaml.Node, path string, t reflect.Type) bool {
	hint := ""
	if t.Kind() == reflect.String && n.Kind == yaml.ScalarNode && n.ShortTag() != nullTag {
		hint = " (quote it to make it a string)"
	}
	d.errorf(path, "expected %s, got %s%s", typeName(t), describe(n), hint)
	return false
}

// typeName says what a Go type looks like in YAML.
func typeName(t reflect.Type) string {
	if t == durationType {
		return "a duration like 30s"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return typeName(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean (true or false)"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Map:
		return "a mapping"
	case reflect.Slice:
		return "a list"
	}
	return t.String()
}

// describe says what a node is, for "expected …, got …" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		v := n.Value
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		switch n.ShortTag() {
		case strTag:
			return "string " + strconv.Quote(v)
		case intTag:
			return "integer " + v
		case floatTag:
			return "number " + v
		case boolTag:
			return "boolean " + v
		case nullTag:
			return "nothing (null)"
		case timestampTag:
			return "timestamp " + v
		}
		return n.ShortTag() + " " + strconv.Quote(v)
	}
	return "an unsupported YAML node"
}

// structInfo maps YAML keys to struct fields.
type structInfo struct {
	index  map[string][]int
	names  []string // declaration order: used for "valid: …" lists and suggestions
	inline []int    // a map field tagged `yaml:",inline"` that catches the other keys, or nil
}

// structCache holds fieldsOf results: struct types are few and fixed, inputs many.
var structCache sync.Map // reflect.Type → structInfo

func fieldsOf(t reflect.Type) structInfo {
	if info, ok := structCache.Load(t); ok {
		return info.(structInfo)
	}
	info := structInfo{index: map[string][]int{}}
	var walk func(t reflect.Type, prefix []int)
	walk = func(t reflect.Type, prefix []int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("yaml")
			// An unexported embedded struct still contributes its exported fields, as in yaml.v3.
			if (!f.IsExported() && !(f.Anonymous && f.Type.Kind() == reflect.Struct)) || tag == "-" {
				continue
			}
			idx := append(append([]int(nil), prefix...), i)
			name, opts, _ := strings.Cut(tag, ",")
			if strings.Contains(","+opts+",", ",inline,") || (f.Anonymous && tag == "") {
				switch f.Type.Kind() {
				case reflect.Struct:
					walk(f.Type, idx)
				case reflect.Map:
					info.inline = idx
				}
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name) // yaml.v3's default
			}
			info.index[name] = idx
			info.names = append(info.names, name)
		}
	}
	walk(t, nil)
	structCache.Store(t, info)
	return info
}

func (d *decoder) structValue(n *yaml.Node, v reflect.Value, path string) bool {
	if isNull(n) {
		return true // "validity:" with everything commented out
	}
	if n.Kind != yaml.MappingNode {
		return d.wrong(n, path, v.Type())
	}
	info := fieldsOf(v.Type())
	for _, p := range d.pairs(n, path, 0) {
		name := p.key.Value
		fp := join(path, name)
		d.keys[fp] = p.key
		if idx, ok := info.index[name]; ok {
			d.decode(p.val, v.FieldByIndex(idx), fp)
			continue
		}
		if info.inline != nil {
			d.inline(p.val, v.FieldByIndex(info.inline), name, fp)
			continue
		}
		d.unknown(p.key, fp, info.names)
	}
	return true
}

// inline stores a key the struct does not name into its catch-all map, for the caller to
// judge (the broker block's per-driver options, whose key is the broker type).
func (d *decoder) inline(n *yaml.Node, m reflect.Value, name, path string) {
	if m.IsNil() {
		m.Set(reflect.MakeMap(m.Type()))
	}
	elem := reflect.New(m.Type().Elem()).Elem()
	if d.decode(n, elem, path) {
		m.SetMapIndex(reflect.ValueOf(name), elem)
	}
}

func (d *decoder) unknown(k *yaml.Node, path string, valid []string) {
	if s := closest(k.Value, valid); s != "" {
		d.add(k, path, "unknown field (did you mean %q?)", s)
		return
	}
	d.add(k, path, "unknown field (valid: %s)", strings.Join(valid, ", "))
}

func (d *decoder) mapValue(n *yaml.Node, v reflect.Value, path string) bool {
	if isNull(n) {
		return true
	}
	if n.Kind != yaml.MappingNode {
		return d.wrong(n, path, v.Type())
	}
	if v.Type().Key().Kind() != reflect.String {
		d.errorf(path, "internal error: map keys must be strings, not %s", v.Type().Key())
		return false
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	for _, p := range d.pairs(n, path, 0) {
		fp := join(path, p.key.Value)
		d.keys[fp] = p.key
		elem := reflect.New(v.Type().Elem()).Elem()
		if d.decode(p.val, elem, fp) {
			v.SetMapIndex(reflect.ValueOf(p.key.Value).Convert(v.Type().Key()), elem)
		}
	}
	return true
}

func (d *decoder) sliceValue(n *yaml.Node, v reflect.Value, path string) bool {
	if isNull(n) {
		return true
	}
	if n.Kind != yaml.SequenceNode {
		return d.wrong(n, path, v.Type())
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.decode(item, s.Index(i), fmt.Sprintf("%s[%d]", path, i))
	}
	v.Set(s)
	return true
}

// pair is one mapping entry.
type pair struct{ key, val *yaml.Node }

// pairs lists a mapping's entries in file order with merge keys ("<<: *defaults") expanded,
// reporting duplicate and non-scalar keys. Explicit keys win over merged ones and earlier
// merged mappings over later ones, as YAML's merge-key spec says.
func (d *decoder) pairs(n *yaml.Node, path string, depth int) []pair {
	var out []pair
	var merges []*yaml.Node
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := d.resolve(n.Content[i]), n.Content[i+1]
		if k == nil || !d.spend(n.Content[i]) {
			continue
		}
		switch {
		case k.Kind == yaml.ScalarNode && k.ShortTag() == mergeTag:
			merges = append(merges, v)
		case k.Kind != yaml.ScalarNode:
			d.add(k, path, "mapping keys must be plain strings, got %s", describe(k))
		case seen[k.Value] != nil:
			d.add(k, join(path, k.Value), "duplicate key (first defined at line %d)", seen[k.Value].Line)
		default:
			seen[k.Value] = k
			out = append(out, pair{k, v})
		}
	}
	for _, m := range merges {
		mn := d.resolve(m)
		if mn == nil {
			continue
		}
		var sources []*yaml.Node
		switch mn.Kind {
		case yaml.MappingNode:
			sources = []*yaml.Node{mn}
		case yaml.SequenceNode:
			sources = mn.Content
		}
		for _, src := range sources {
			src = d.resolve(src)
			if src == nil || src.Kind != yaml.MappingNode {
				d.add(m, join(path, "<<"), "a merge key needs a mapping or a list of mappings")
				continue
			}
			if depth >= maxMergeDepth {
				d.add(m, join(path, "<<"), "merge keys nested too deeply")
				continue
			}
			for _, p := range d.pairs(src, path, depth+1) {
				if seen[p.key.Value] == nil {
					seen[p.key.Value] = p.key
					out = append(out, p)
				}
			}
		}
		if len(sources) == 0 {
			d.add(m, join(path, "<<"), "a merge key needs a mapping or a list of mappings")
		}
	}
	return out
}

// reported says whether a problem was already recorded for path (one message per field).
func (d *decoder) reported(path string) bool {
	for _, p := range d.problems {
		if p.Field == path {
			return true
		}
	}
	return false
}
