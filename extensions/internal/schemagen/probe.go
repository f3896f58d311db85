package schemagen

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// The parser names the valid values when it refuses a string ("must be one of random,
// zeros, file, template, got …"): each string key is written with a value no enumeration
// has, into a scenario that is otherwise valid, and the list the parser answers with is
// the key's enumeration. So a value added to the parser reaches the schema by itself.

const probeValue = "zz-schema-probe"

// probeBase is a valid scenario to write one probed key into.
func probeBase() map[string]any {
	return map[string]any{
		"name":     "probe",
		"broker":   map[string]any{"type": "nats", "url": "embedded"},
		"workload": map[string]any{"destination": "probe", "duration": "1s"},
		"matrix":   []any{map[string]any{"size": "1KB", "rate": 100}},
	}
}

// probeEnum returns the values the parser accepts at path, or nil when it takes any string.
func probeEnum(path string) ([]any, error) {
	doc := probeBase()
	if err := setPath(doc, path, probeValue); err != nil {
		return nil, err
	}
	problems, err := parseDoc(doc)
	if err != nil {
		return nil, err
	}
	field := strings.ReplaceAll(path, "[]", "[0]")
	for _, p := range problems {
		list, ok := strings.CutPrefix(p.Msg, "must be one of ")
		if p.Field != field || !ok {
			continue
		}
		list, _, _ = strings.Cut(list, ", got ")
		var values []any
		for _, v := range strings.Split(list, ", ") {
			values = append(values, v)
		}
		return values, nil
	}
	return nil, nil
}

// parseDoc parses a scenario given as maps and returns its problems.
func parseDoc(doc map[string]any) ([]scenario.Problem, error) {
	text, err := yaml.Marshal(doc)
	if err != nil {
		return nil, err
	}
	_, err = scenario.Parse("", text)
	var errs *scenario.Errors
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &errs):
		return errs.Problems, nil
	}
	return nil, err
}

// setPath writes v at a dotted path, "matrix[]" being the first cell; the path's mappings
// are made as needed.
func setPath(doc map[string]any, path string, v any) error {
	parts := strings.Split(path, ".")
	m := doc
	for i, part := range parts {
		name, list := strings.CutSuffix(part, "[]")
		if i == len(parts)-1 && !list {
			m[name] = v
			return nil
		}
		if list {
			items, _ := m[name].([]any)
			if len(items) == 0 {
				items = []any{map[string]any{}}
				m[name] = items
			}
			if i == len(parts)-1 {
				items[0] = v
				return nil
			}
			next, ok := items[0].(map[string]any)
			if !ok {
				return fmt.Errorf("probe %s: %s[0] is not a mapping", path, name)
			}
			m = next
			continue
		}
		next, ok := m[name].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[name] = next
		}
		m = next
	}
	return nil
}

// defaults are the values the parser takes for a key left out: defaults_test.go parses a
// scenario without them and checks each against what the parser built.
var defaults = map[string]any{
	"workload.pattern":                  "one-way",
	"workload.destinations":             1,
	"workload.subscriptions":            1,
	"workload.producers":                1,
	"workload.consumers":                1,
	"workload.batch":                    1,
	"workload.warmup":                   "0s",
	"workload.drain":                    "2s",
	"workload.pacing":                   "precise",
	"workload.payload.content":          "random",
	"workload.payload.key":              "none",
	"workload.payload.compressibility":  0,
	"samples":                           "aggregated",
	"validity.allow_dropped_iterations": false,
	"distributed.destination":           "per-runner",
	"distributed.producers":             0,
	"distributed.consumers":             0,
	"search.step":                       "20s",
	"search.confirm":                    "60s",
	"search.precision":                  "5%",
	"search.backlog_growth":             "1%",
	"matrix[].start_rate":               0,
	"matrix[].replay.speed":             1,
	"matrix[].replay.loop":              false,
}

func defaultOf(path string) (any, bool) {
	v, ok := defaults[path]
	return v, ok
}

// percentValue reads "5%" as 0.05, for the test.
func percentValue(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	return f / 100, err
}
