package scenario

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// docs/scenario.md's reference names every key the parser accepts in the workload, a matrix
// cell, the payload, the faults and validity blocks, so the table cannot fall behind the format.
func TestReadmeReferenceNamesEveryKey(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(), "docs", "scenario.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "## Reference")
	if start < 0 {
		t.Fatal("docs/scenario.md has no \"## Reference\" section")
	}
	end := strings.Index(text[start+1:], "\n## ")
	if end < 0 {
		end = len(text) - start - 1
	}
	if end < 0 {
		t.Fatal("docs/scenario.md has no \"## Reference\" section")
	}
	ref := text[start : start+1+end]
	for block, v := range map[string]any{"workload": rawWorkload{}, "matrix[]": rawCell{}, "workload.payload": rawPayload{},
		"faults": rawFaults{}, "faults.schedule[]": rawFault{}, "validity": rawValidity{}, "search": rawSearch{}} {
		rt := reflect.TypeOf(v)
		for i := 0; i < rt.NumField(); i++ {
			key := strings.Split(rt.Field(i).Tag.Get("yaml"), ",")[0]
			if key == "" {
				continue
			}
			if !strings.Contains(ref, "`"+key+"`") && !strings.Contains(ref, "."+key+"`") && !strings.Contains(ref, "`"+key+":") &&
				!strings.Contains(ref, " "+key+":") && !strings.Contains(ref, "{ "+key) && !strings.Contains(ref, "."+key+".") {
				t.Errorf("docs/scenario.md's reference does not name %s.%s", block, key)
			}
		}
	}
}
