package scenario

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Problem is one thing wrong with a scenario file, located precisely enough for an editor
// to jump to it ("file:line:col").
type Problem struct {
	File  string
	Line  int    // 1-based; 0 when unknown (only for some YAML syntax errors)
	Col   int    // 1-based; 0 when unknown
	Field string // dotted path such as "matrix[1].size"; empty for file-level problems
	Msg   string
}

// String formats the problem as "file:line:col: field: message", leaving out the parts
// that are unknown.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		b.WriteString(":" + strconv.Itoa(p.Line))
		if p.Col > 0 {
			b.WriteString(":" + strconv.Itoa(p.Col))
		}
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field + ": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Errors is every problem found in one scenario file. Parsing collects them all instead of
// stopping at the first, so a user fixes a file in one round trip.
type Errors struct {
	File     string
	Problems []Problem // sorted by line, then column
}

// Error formats the problems as a titled list, like k6 does for invalid options.
func (e *Errors) Error() string {
	noun := "problems"
	if len(e.Problems) == 1 {
		noun = "problem"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "invalid scenario %s (%d %s):", e.File, len(e.Problems), noun)
	for _, p := range e.Problems {
		b.WriteString("\n  - " + p.String())
	}
	return b.String()
}

// sortProblems orders problems as they appear in the file; field and message break ties so
// the output is deterministic (Go map iteration is not).
func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		return a.Msg < b.Msg
	})
}
