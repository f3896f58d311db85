package schemagen

import (
	"strings"
	"testing"
)

// Each key the schema requires is one the parser refuses a file without: the block written
// whole, then each required key left out in turn.
func TestRequiredKeysAreTheParsers(t *testing.T) {
	blocks := map[string]any{
		"":                     nil, // probeBase itself
		"broker":               map[string]any{"type": "nats", "url": "embedded"},
		"workload":             map[string]any{"destination": "probe", "duration": "1s"},
		"workload.payload.key": map[string]any{"type": "uniform", "keys": 10},
		"matrix[].stages[]":    map[string]any{"target": 100, "duration": "2s"},
		"matrix[].steps":       map[string]any{"from": 100, "to": 200, "step": 100, "hold": "1s"},
		"matrix[].burst":       map[string]any{"every": "2s", "for": "1s", "rate": "2x"},
		"matrix[].replay":      map[string]any{"file": "rec.csv"},
		"search":               map[string]any{"max_rate": 1000},
		"thresholds.*[]":       map[string]any{"threshold": "p(99) < 10ms"},
	}
	for parent, keys := range required {
		block, ok := blocks[parent]
		if !ok {
			t.Errorf("required[%q]: no block to check it with in this test", parent)
			continue
		}
		for _, key := range keys {
			t.Run(join(parent, key), func(t *testing.T) {
				doc := probeBase()
				at := strings.ReplaceAll(parent, "thresholds.*", "thresholds.mq_e2e_latency")
				if block != nil {
					m := map[string]any{}
					for k, v := range block.(map[string]any) {
						m[k] = v
					}
					delete(m, key)
					if err := setPath(doc, at, m); err != nil {
						t.Fatal(err)
					}
				} else {
					delete(doc, key)
				}
				problems, err := parseDoc(doc)
				if err != nil {
					t.Fatal(err)
				}
				field := strings.ReplaceAll(join(at, key), "[]", "[0]")
				for _, p := range problems {
					if p.Field == field || strings.HasPrefix(p.Field, field+".") {
						return
					}
				}
				t.Errorf("the parser accepts a file without %s (problems: %v)", field, problems)
			})
		}
	}
}
