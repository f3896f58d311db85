package schemagen

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// containers describes the mappings that docs/scenario.md's reference has no row for (it
// lists their keys instead).
var containers = map[string]string{
	"broker":           "The broker under test: its type, its url and the options block named by its type.",
	"workload":         "What every cell runs: destination, connections, payload, timing. Cells may override counts and durations.",
	"workload.payload": "What each message carries: content, key, stamp.",
	"validity":         "When a run's measurements count.",
	"matrix":           "The cells, run one after another.",
}

var (
	codeRE = regexp.MustCompile("`([^`]+)`")
	linkRE = regexp.MustCompile(`\[([^\]]+)\]\([^)]*\)`)
)

// parseReference reads the "## Reference" table of docs/scenario.md: each row's keys (the
// first column's `code` spans; a key without a dot is a sibling of the row's first key) to
// its meaning and default.
func parseReference(md string) (map[string]string, error) {
	_, section, ok := strings.Cut(md, "\n## Reference\n")
	if !ok {
		return nil, fmt.Errorf("no \"## Reference\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	out := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |"), " | ")
		if len(cells) != 3 {
			return nil, fmt.Errorf("reference row with %d columns, not 3: %.60s", len(cells), line)
		}
		text := clean(cells[1]) + " Default / rule: " + clean(cells[2])
		var first string
		for _, m := range codeRE.FindAllStringSubmatch(cells[0], -1) {
			key, _, _ := strings.Cut(m[1], ":") // `matrix[].rate: max`
			switch {
			case first == "":
				first = key
			case !strings.ContainsAny(key, ".["):
				key = join(parent(first), key)
			}
			if out[key] != "" {
				text = out[key] + " " + text
			}
			out[key] = text
		}
	}
	return out, nil
}

func clean(s string) string { return strings.TrimSpace(linkRE.ReplaceAllString(s, "$1")) }

func parent(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

// describe is a key's row; else, for a cell's key, the workload key it overrides; else the
// row of a sibling that speaks of it; else the nearest enclosing key's row.
func (b *builder) describe(path string) string {
	if d := b.docs[path]; d != "" {
		return d
	}
	if d := containers[path]; d != "" {
		return d
	}
	leaf := path[strings.LastIndexAny(path, ".")+1:]
	if rest, ok := strings.CutPrefix(path, "matrix[]."); ok && !strings.ContainsAny(rest, ".[") {
		if d := b.docs["workload."+rest]; d != "" {
			return "A cell's own value, in place of the workload's. " + d
		}
	}
	keys := slices.Sorted(maps.Keys(b.docs))
	for _, key := range keys {
		if d := b.docs[key]; parent(key) == parent(path) && strings.Contains(d, "`"+leaf) {
			return "See `" + key + "`: " + d
		}
	}
	for p := parent(path); p != ""; p = parent(p) {
		if d := b.docs[p]; d != "" {
			return "Part of `" + p + "`: " + d
		}
		if d := containers[p]; d != "" {
			return "Part of `" + p + "`: " + d
		}
	}
	return ""
}
