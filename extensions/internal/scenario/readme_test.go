package scenario

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// README's scenario reference names every key the parser accepts in the workload, a matrix
// cell, the payload, the faults and validity blocks, so the table cannot fall behind the format.
func TestReadmeReferenceNamesEveryKey(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "### Reference")
	end := strings.Index(text[start+1:], "\n## ")
	if start < 0 || end < 0 {
		t.Fatal("README.md has no \"### Reference\" section")
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
				t.Errorf("README's scenario reference does not name %s.%s", block, key)
			}
		}
	}
}
