package scenario

import (
	"maps"
	"slices"
	"strings"
	"unicode"
)

// fileNames refuses a control character in any file name the scenario writes (payload.file
// and every key ending in _file): such a name reaches logs, reports and generated scripts
// (k6 x mqbench k8s), where a newline becomes a new line. The name itself is not repeated.
func (d *decoder) fileNames() {
	for _, path := range slices.Sorted(maps.Keys(d.vals)) {
		last := path[strings.LastIndexAny(path, ".[")+1:]
		if last != "file" && !strings.HasSuffix(last, "_file") {
			continue
		}
		if n := d.vals[path]; n != nil && strings.ContainsFunc(n.Value, unicode.IsControl) {
			// A driver's own problem with this file (cannot read it) would print the name raw.
			d.problems = slices.DeleteFunc(d.problems, func(p Problem) bool { return p.Field == path })
			d.errorf(path, "a file name must not contain a control character (a newline, tab or escape)")
		}
	}
}
