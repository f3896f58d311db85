package schemagen

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/reference"
)

// brokerType is broker.type: a registered driver's name.
func brokerType(*builder, string) (obj, error) {
	var names []any
	for _, br := range reference.Brokers() {
		names = append(names, br.Name)
	}
	return withEnv(obj{"enum": names}), nil
}

// brokerBlocks adds broker.<type> for every driver, from its option reference, and allows
// only the block of the type chosen (the parser refuses the others).
func brokerBlocks(broker obj) error {
	props := broker["properties"].(obj)
	var only []any
	for _, br := range reference.Brokers() {
		block, err := driverBlock(br)
		if err != nil {
			return fmt.Errorf("broker.%s: %w", br.Name, err)
		}
		props[br.Name] = block
		others := obj{}
		for _, o := range reference.Brokers() {
			if o.Name != br.Name {
				others[o.Name] = false
			}
		}
		only = append(only, obj{
			"if":   obj{"properties": obj{"type": obj{"const": br.Name}}, "required": []string{"type"}},
			"then": obj{"properties": others},
		})
	}
	broker["allOf"] = only
	return nil
}

// driverBlock is one driver's options: its keys in a tree of blocks, each block closed.
func driverBlock(br reference.Broker) (obj, error) {
	desc := fmt.Sprintf("Options of the %s driver (%s), used when broker.type is %s. Default url: %s.", br.Name, br.Summary, br.Name, br.DefaultURL)
	root := obj{}
	block := obj{"type": []string{"object", "null"}, "properties": root, "additionalProperties": false, "description": desc}
	blocks := map[string]obj{"": root}
	for _, o := range br.Options {
		parent, leaf := "", o.Key
		if i := strings.LastIndex(o.Key, "."); i >= 0 {
			parent, leaf = o.Key[:i], o.Key[i+1:]
		}
		into, ok := blocks[parent]
		if !ok {
			return nil, fmt.Errorf("%s comes before its block %s", o.Key, parent)
		}
		s, children, err := option(o, br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Key, err)
		}
		if children != nil {
			blocks[o.Key] = children
		}
		into[leaf] = s
	}
	return block, nil
}

// option is one key's schema, and the properties of its block when it is one.
func option(o reference.Option, br reference.Broker) (obj, obj, error) {
	desc := o.Description
	if a := o.Allowed(); a != "" {
		desc += " Allowed: " + a + "."
	}
	if o.Default != "" {
		desc += " Default: " + o.Default + "."
	}
	if m := o.ModesText(br); m != "" && m != "all" {
		desc += " Applies in " + br.ModeKey + ": " + m + "."
	}
	var s, children obj
	switch o.Type {
	case "block":
		children = obj{}
		s = obj{"type": []string{"object", "null"}, "properties": children, "additionalProperties": false}
	case "boolean or block":
		children = obj{}
		s = obj{"anyOf": []any{
			obj{"type": "boolean"},
			obj{"type": []string{"object", "null"}, "properties": children, "additionalProperties": false},
			ref("env"),
		}}
	case "map of string to string":
		s = obj{"type": []string{"object", "null"}, "additionalProperties": obj{"type": "string"}}
	case "string":
		s = obj{"type": "string"}
		if o.Values != nil {
			s = withEnv(obj{"enum": o.Values})
		}
	case "string or integer":
		s = withEnv(obj{"type": []string{"string", "integer"}})
		if o.Values != nil {
			var values []any
			for _, v := range o.Values {
				values = append(values, v)
				if n, err := strconv.Atoi(v); err == nil {
					values = append(values, n)
				}
			}
			s = withEnv(obj{"enum": values})
		}
	case "integer":
		n := obj{"type": "integer"}
		if v, err := strconv.Atoi(o.Min); err == nil {
			n["minimum"] = v
		}
		if v, err := strconv.Atoi(o.Max); err == nil {
			n["maximum"] = v
		}
		s = withEnv(n)
	case "boolean":
		s = withEnv(obj{"type": "boolean"})
	case "duration":
		s = use("duration")
	default:
		return nil, nil, fmt.Errorf("option type %q has no schema here (schemagen/brokers.go)", o.Type)
	}
	s["description"] = desc
	if d, ok := optionDefault(o); ok {
		s["default"] = d
	}
	return s, children, nil
}

// optionDefault is the default as a value of the key's type; a default given in words
// ("none", "off", "the destination") stays in the description only.
func optionDefault(o reference.Option) (any, bool) {
	switch o.Type {
	case "integer":
		n, err := strconv.Atoi(o.Default)
		return n, err == nil
	case "boolean":
		v, err := strconv.ParseBool(o.Default)
		return v, err == nil
	case "duration":
		_, err := time.ParseDuration(o.Default)
		return o.Default, err == nil
	case "string", "string or integer":
		return o.Default, slices.Contains(o.Values, o.Default)
	}
	return nil, false
}
