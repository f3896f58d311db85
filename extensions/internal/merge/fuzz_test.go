package merge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/merge/mergetest"
)

// FuzzLoadShard: a shard.json from a stranger, in an otherwise valid one-runner run, is
// loaded and checked without panicking, within seconds (runner counts and cell ids are
// bounded before anything loops on them), and its problems never repeat a run of its bytes.
func FuzzLoadShard(f *testing.F) {
	runDir := filepath.Join(f.TempDir(), "merge-test", "run-1")
	dir, err := mergetest.Write(runDir, mergetest.Runner{I: 1, N: 1, Cells: []mergetest.Cell{{ID: "c1", E2E: []int64{1e6, 2e6}}}})
	if err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(dir, "shard.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	var m map[string]any
	if err := json.Unmarshal(good, &m); err != nil {
		f.Fatal(err)
	}
	for k, v := range map[string]any{"runners": 50_000_000, "kind": "SECRET_TOKEN=hunter2-abcdef", "scenario": "../../x",
		"cells": []map[string]string{{"id": "../../../PWNED"}}, "segment": "SECRET_TOKEN=hunter2-abcdef"} {
		m2 := map[string]any{}
		for a, b := range m {
			m2[a] = b
		}
		m2[k] = v
		b, _ := json.Marshal(m2)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, "shard.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, shards, err := Load(runDir)
		if err != nil {
			t.Fatal(err)
		}
		err = Check(shards, DefaultMaxSkew)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("load and check took %s", d)
		}
		if err == nil {
			return
		}
		for _, p := range err.(*Invalid).Problems {
			if strings.Contains(p, "\n") || strings.Contains(p, "hunter2") || quotes(p, data) {
				t.Fatalf("problem quotes the shard or spans lines: %q", p)
			}
		}
	})
}

// vocabulary is the merge's own fixed text a problem may repeat (an input that holds it is
// not quoted: testdata/fuzz/FuzzLoadShard/c4d2dc681a837c1d).
const vocabulary = `not an mqbench shard manifest (want kind "mqbench-shard", version 1 or 2)`

// quotes reports whether msg repeats a run of 16 bytes of data that is not its own text.
func quotes(msg string, data []byte) bool {
	for i := 0; i+16 <= len(data) && i < 1<<14; i++ {
		if w := string(data[i : i+16]); strings.Contains(msg, w) && !strings.Contains(vocabulary, w) {
			return true
		}
	}
	return false
}
