package schemagen

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

var (
	nodeType     = reflect.TypeOf(yaml.Node{})
	durationType = reflect.TypeOf(time.Duration(0))
)

// builder walks the raw structs as the strict decoder does (decode.go's fieldsOf): a key
// per `yaml:"…"` tag, unknown keys refused, a null accepted for a mapping or a list.
type builder struct {
	docs  map[string]string       // docs/scenario.md's descriptions by key path
	defs  obj                     // definitions made while walking (a threshold's long form)
	types map[string]reflect.Type // scenario.RawTypes
}

// value is the schema of a value of Go type t at path ("matrix[].size": [] is any item).
func (b *builder) value(t reflect.Type, path string) (obj, error) {
	if shape, ok := shapeOf(path); ok {
		return shape(b, path)
	}
	switch t {
	case durationType:
		return use("duration"), nil
	case nodeType:
		return nil, fmt.Errorf("%s: a yaml.Node field takes several shapes; say which in shapes.go", path)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return b.value(t.Elem(), path)
	case reflect.Struct:
		return b.object(t, path)
	case reflect.Slice:
		items, err := b.value(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		if err := b.annotate(items, path+"[]"); err != nil {
			return nil, err
		}
		return obj{"type": []string{"array", "null"}, "items": items}, nil
	case reflect.String:
		if values, err := probeEnum(path); err != nil {
			return nil, err
		} else if values != nil {
			return withEnv(obj{"enum": values}), nil
		}
		return obj{"type": "string"}, nil
	case reflect.Bool:
		return withEnv(obj{"type": "boolean"}), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return withEnv(obj{"type": "integer"}), nil
	case reflect.Float32, reflect.Float64:
		return withEnv(obj{"type": "number"}), nil
	}
	return nil, fmt.Errorf("%s: no schema for Go type %s", path, t)
}

// object is a struct's mapping: its keys, no other (the parser refuses unknown keys).
func (b *builder) object(t reflect.Type, path string) (obj, error) {
	props := obj{}
	out := obj{"type": []string{"object", "null"}, "properties": props, "additionalProperties": false}
	var walk func(t reflect.Type) error
	walk = func(t reflect.Type) error {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("yaml")
			if (!f.IsExported() && !(f.Anonymous && f.Type.Kind() == reflect.Struct)) || tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if strings.Contains(","+opts+",", ",inline,") || (f.Anonymous && tag == "") {
				if f.Type.Kind() == reflect.Struct {
					if err := walk(f.Type); err != nil {
						return err
					}
					continue
				}
				// The catch-all map of other keys: only the broker's, one block per driver.
				if path != "broker" {
					return fmt.Errorf("%s: an inline map is only understood in broker", path)
				}
				if err := brokerBlocks(out); err != nil {
					return err
				}
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			fp := join(path, name)
			s, err := b.value(f.Type, fp)
			if err != nil {
				return err
			}
			if err := b.annotate(s, fp); err != nil {
				return err
			}
			props[name] = s
		}
		return nil
	}
	if err := walk(t); err != nil {
		return nil, err
	}
	if r := required[path]; r != nil {
		out["required"] = r
	}
	return out, nil
}

// annotate adds the key's description and default; every key has a description.
func (b *builder) annotate(s obj, path string) error {
	if _, ok := s["description"]; !ok {
		d := b.describe(path)
		if d == "" {
			return fmt.Errorf("%s: no description in docs/scenario.md's reference (or containers in docs.go)", path)
		}
		s["description"] = d
	}
	if d, ok := defaultOf(path); ok {
		s["default"] = d
	}
	return nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func ref(name string) obj { return obj{"$ref": "#/definitions/" + name} }

// use is a definition in a schema of its own, so that a description and a default beside it
// count (draft-07 ignores a $ref's siblings).
func use(name string) obj { return obj{"allOf": []any{ref(name)}} }

// withEnv lets a value be written as ${NAME}: the parser expands it before judging the value
// (scenario/env.go), so any scalar may be a reference whatever its type.
func withEnv(s obj) obj { return obj{"anyOf": []any{s, ref("env")}} }
