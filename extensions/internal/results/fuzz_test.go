package results_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// quotes reports whether msg repeats a run of 16 bytes of data (an error must name fields
// and offsets, not a stranger's bytes).
func quotes(msg string, data []byte) bool {
	for i := 0; i+16 <= len(data) && i < 1<<14; i++ {
		if strings.Contains(msg, string(data[i:i+16])) {
			return true
		}
	}
	return false
}

// FuzzLoadSummary: a summary.json from a stranger, beside a real .hgrm and a secret outside
// the folder, loads or fails in one line, without panicking, reading the secret or quoting
// the file.
func FuzzLoadSummary(f *testing.F) {
	s := sample()
	s.Cells = s.Cells[:1]
	s.Cells[0].Hgrm = map[string]string{"e2e": "hgrm/c1.e2e.hgrm", "publish": "../secret"}
	good, _ := json.Marshal(s)
	f.Add(good)
	f.Add([]byte(`{"scenario":"x","cells":[{"id":"c1","hgrm":{"e2e":"/proc/self/environ"}}]}`))
	f.Add([]byte(`{"scenario":"x","cells":[{"id":"c1","sent":"SECRET_TOKEN=hunter2-abcdef"}]}`))
	f.Add([]byte(`{"scenario":"x","schema":1,"cells":[{"id":"c1","hgrm":{"e2e":"hgrm/c1.e2e.hgrm"}}]}`))
	// One run folder per fuzzing process (each iteration rewrites only its summary.json).
	top := f.TempDir()
	if err := os.WriteFile(filepath.Join(top, "secret"), []byte("SECRET_TOKEN=hunter2 1 2\n"), 0o600); err != nil {
		f.Fatal(err)
	}
	dir := filepath.Join(top, "run")
	h := hist.New()
	h.Record(5000)
	if _, err := results.WriteData(dir, sample(), results.Hists{"c1": {"e2e": h}}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, "summary.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := results.Load(dir)
		if err == nil {
			return
		}
		msg := strings.TrimPrefix(err.Error(), filepath.Join(dir, "summary.json"))
		if strings.Contains(msg, "hunter2") || strings.Contains(msg, "\n") || quotes(msg, data) {
			t.Fatalf("error quotes a file or spans lines: %q", msg)
		}
	})
}
