package schemagen

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/header"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// Unit patterns, as loose as the parser's readers (scenario/size.go, maxrate.go, sizemix.go,
// search.go and Go's time.ParseDuration): a pattern that refused a form the parser takes
// would mark a valid file. Ranges and sums (a mix adding up to 100%) are left to validate.
const (
	durationPattern = `^\s*[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)\s*$`
	sizePattern     = `^\s*[0-9]+(\.[0-9]+)?\s*([Bb]|[KkMmGg]([Ii])?[Bb])\s*$`
	percentPattern  = `^\s*[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?\s*%\s*$`
	numberPattern   = `^\s*[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?\s*%?\s*$`
	multiplePattern = `^[0-9.]+x$`
	envPattern      = `\$\{[A-Za-z_]`
)

func definitions() obj {
	return obj{
		"env": obj{"type": "string", "pattern": envPattern,
			"description": "${NAME} (or ${NAME:-default}, …): the value of an environment variable (or k6's -e NAME=…), judged once expanded"},
		"duration": obj{"anyOf": []any{
			obj{"type": "string", "pattern": durationPattern},
			obj{"const": 0},
			ref("env"),
		}, "description": "a duration with its unit: 250ms, 30s, 1m30s, 2h (a bare 0 too)"},
		"size": obj{"anyOf": []any{
			obj{"type": "integer", "minimum": header.CompactSize, "maximum": scenario.MaxSize},
			obj{"type": "string", "pattern": sizePattern},
			ref("env"),
		}, "description": fmt.Sprintf("bytes, or a size with a binary unit: 256B, 1KB (1024 bytes), 1.5MB, 64KiB; %d B to 64 MB", header.CompactSize)},
		"percent": obj{"anyOf": []any{obj{"type": "string", "pattern": percentPattern}, ref("env")},
			"description": "a percentage: 5%, 0.5%"},
		"threshold_list": obj{
			"type":     "array",
			"minItems": 1,
			"items": obj{"anyOf": []any{
				obj{"type": "string", "description": "k6 threshold syntax: p(99) < 5ms, count == 0, rate > 1000"},
				ref("expression"),
			}},
		},
	}
}

// shape builds the schema of the value at a path whose Go type does not say it all: the
// yaml.Node fields (several shapes) and strings with a unit.
type shape func(b *builder, path string) (obj, error)

// shapeOf is the shape of the value at path, if it has one of its own (a function, not a
// map variable: the shapes walk structs themselves, which look shapes up).
func shapeOf(path string) (shape, bool) {
	s, ok := map[string]shape{
		"broker.type":                      brokerType,
		"matrix[].size":                    size,
		"matrix[].rate":                    rate,
		"matrix[].burst.rate":              burstRate,
		"matrix[].thresholds":              thresholds,
		"thresholds":                       thresholds,
		"workload.payload.compressibility": compressibility,
		"workload.payload.key":             keys,
		"workload.payload.key.hot.share":   fixed("percent"),
		"workload.payload.key.hot.keys":    fixed("percent"),
		"search.precision":                 fixed("percent"),
		"search.backlog_growth":            fixed("percent"),
		"thresholds.*[].delay_abort_eval":  fixed("duration"),
	}[path]
	return s, ok
}

// required lists the keys the parser always requires (whatever else the file says); keys
// required only beside others (workload.duration, a distribution's s) are validate's.
var required = map[string][]string{
	"":                     {"name", "broker", "workload", "matrix"},
	"broker":               {"type"},
	"workload":             {"destination"},
	"workload.payload.key": {"type", "keys"},
	"matrix[].stages[]":    {"target", "duration"},
	"matrix[].steps":       {"from", "to", "step", "hold"},
	"matrix[].burst":       {"every", "for", "rate"},
	"matrix[].replay":      {"file"},
	"search":               {"max_rate"},
	"thresholds.*[]":       {"threshold"},
}

func fixed(name string) shape {
	return func(*builder, string) (obj, error) { return use(name), nil }
}

func size(b *builder, path string) (obj, error) {
	mix := obj{
		"type":                 "object",
		"description":          "a size mix: sizes with their shares of the messages, adding up to 100%: { 256B: 70%, 4KB: 30% }",
		"propertyNames":        obj{"pattern": `^\s*[0-9]+(\.[0-9]+)?\s*([Bb]|[KkMmGg]([Ii])?[Bb])?\s*$`},
		"additionalProperties": ref("percent"),
		"minProperties":        2,
	}
	return obj{"anyOf": []any{ref("size"), mix}}, nil
}

func rate(b *builder, path string) (obj, error) {
	return withEnv(obj{"anyOf": []any{
		obj{"type": "integer", "minimum": 1},
		obj{"const": scenario.RateMax, "description": "a closed loop: as fast as the broker acknowledges, at most inflight unacknowledged"},
	}}), nil
}

func burstRate(b *builder, path string) (obj, error) {
	return withEnv(obj{"anyOf": []any{
		obj{"type": "integer", "minimum": 1},
		obj{"type": "string", "pattern": multiplePattern, "description": "a multiple of the cell's rate: 10x"},
	}}), nil
}

func compressibility(b *builder, path string) (obj, error) {
	return withEnv(obj{"anyOf": []any{
		obj{"type": "number", "minimum": 0, "maximum": 0.9},
		obj{"type": "string", "pattern": numberPattern},
	}}), nil
}

// keys is a key's name or a distribution's mapping.
func keys(b *builder, path string) (obj, error) {
	names, err := probeEnum(path)
	if err != nil {
		return nil, err
	}
	if names == nil {
		return nil, fmt.Errorf("%s: the parser named no valid key names", path)
	}
	dist, err := b.object(b.types["keydist"], path)
	if err != nil {
		return nil, err
	}
	dist["type"] = "object"
	return obj{"anyOf": []any{obj{"enum": names}, dist, ref("env")}}, nil
}

// thresholds is metric → list of expressions: a catalogue metric, with a k6 tag filter or
// without, each described from the catalogue. The long form of an expression is the same
// everywhere: one definition, described as the scenario-wide one.
func thresholds(b *builder, path string) (obj, error) {
	if b.defs["expression"] == nil {
		expr, err := b.object(b.types["expression"], "thresholds.*[]")
		if err != nil {
			return nil, err
		}
		expr["type"] = "object"
		expr["description"] = "the long form: threshold, abort_on_fail, delay_abort_eval"
		b.defs["expression"] = expr
	}
	props, names := obj{}, []string{}
	for _, list := range [][]catalog.Metric{catalog.Metrics, catalog.BuiltinThresholdMetrics} {
		for _, m := range list {
			names = append(names, m.Name)
			props[m.Name] = obj{"allOf": []any{ref("threshold_list")}, "description": m.Name + ": " + m.Desc}
		}
	}
	sort.Strings(names)
	filtered := use("threshold_list")
	filtered["description"] = "a metric with a k6 tag filter: mq_e2e_latency{size:1KB}, {cell:c1}, {stage:spike}"
	return obj{
		"type":                 []string{"object", "null"},
		"properties":           props,
		"patternProperties":    obj{`^(` + strings.Join(names, "|") + `)\{.*\}$`: filtered},
		"additionalProperties": false,
	}, nil
}
