package scenario

import (
	"errors"
	"os"
	"testing"
)

// FuzzParse checks that no input makes the parser panic and that every failure is a
// located *Errors, so the CLI can always print file:line and pick the invalid-scenario
// exit code.
func FuzzParse(f *testing.F) {
	files, err := scenarioFiles()
	if err != nil || len(files) == 0 {
		f.Fatalf("no scenarios to seed from (err %v)", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("a: &a [*a, *a]\nb: *a\n"))
	f.Add([]byte("<<: {name: x}\nmatrix: [{<<: *a}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const file = "fuzz.yaml"
		s, err := Parse(file, data)
		if err == nil {
			if s == nil || len(s.Cells) == 0 || s.Name != "fuzz" {
				t.Fatalf("accepted an incomplete scenario: %+v", s)
			}
			return
		}
		var e *Errors
		if !errors.As(err, &e) {
			t.Fatalf("error is %T, not *Errors: %v", err, err)
		}
		if len(e.Problems) == 0 {
			t.Fatal("*Errors without problems")
		}
		for _, p := range e.Problems {
			if p.File != file {
				t.Fatalf("problem without its file: %+v", p)
			}
			if p.Line <= 0 && len(e.Problems) != 1 {
				t.Fatalf("unlocated problem among several: %+v", e.Problems)
			}
		}
		_ = e.Error()
	})
}
