package reproduce

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
	_ "github.com/mqbench/xk6-mqbench/internal/driver/all"
	"github.com/mqbench/xk6-mqbench/internal/figure"
	"gopkg.in/yaml.v3"
)

const study = `name: st
broker: { type: nats, url: embedded }
workload: { destination: q, warmup: 5s, duration: 1m, drain: 2m }
matrix:
  - &c { size: 1KB, rate: max, messages: 100000, duration: 3m }
  - { <<: *c, size: 5KB, messages: 1000, drain: 30s }
  - { size: 256B, rate: 500, duration: 90s, warmup: 1500ms }
`

func TestScale(t *testing.T) {
	for _, tc := range []struct {
		scale float64
		want  []string // YAML paths → values, "key=value"
	}{
		{0.5, []string{"workload.warmup=2s", "workload.duration=30s", "workload.drain=60s",
			"0.messages=50000", "0.duration=90s", "1.messages=500", "1.drain=15s", "2.duration=45s", "2.warmup=1s"}},
		// Floors: 100 messages, 3 s durations, 20 s for a counted cell's limit, 1 s warm-ups, 10 s drains.
		{0.001, []string{"workload.warmup=1s", "workload.duration=3s", "workload.drain=10s",
			"0.messages=100", "0.duration=20s", "1.messages=100", "1.drain=10s", "2.duration=3s", "2.warmup=1s"}},
	} {
		root, err := childrun.ParseDoc([]byte(study), "st.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if err := Scale(root, tc.scale); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			path, value, _ := strings.Cut(w, "=")
			where, key, _ := strings.Cut(path, ".")
			m := childrun.Get(root, "workload")
			if where != "workload" {
				m = childrun.Get(root, "matrix").Content[int(where[0]-'0')]
			}
			if got := childrun.Get(m, key); got == nil || got.Value != value {
				t.Errorf("scale %g: %s = %v, want %s", tc.scale, path, got, value)
			}
		}
	}
	root, _ := childrun.ParseDoc([]byte("name: x\nworkload: { duration: soon }\n"), "x.yaml")
	if err := Scale(root, 0.5); err == nil || !strings.HasPrefix(err.Error(), `workload.duration: cannot scale "soon"`) {
		t.Errorf("an unreadable duration: %v", err)
	}
}

// A scenario with a counted cell runs one cell at a time: each part validates alone, named
// after its file; one without, or with a search block, runs whole.
func TestSplitFiles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "st.yaml")
	if err := os.WriteFile(src, []byte(study), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := Study{Dir: dir, Scale: 0.01}.Files(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || filepath.Base(files[2]) != "st-c3.yaml" {
		t.Fatalf("files %v", files)
	}
	b, _ := os.ReadFile(files[1])
	if !strings.HasPrefix(string(b), "# "+src+", scaled by 0.01, cell c2 alone, for make reproduce\n") || !strings.Contains(string(b), "size: 5KB") {
		t.Errorf("st-c2.yaml:\n%s", b)
	}
	if files, err := (Study{Dir: dir, Scale: 1}).Files(src); err != nil || len(files) != 3 {
		t.Errorf("scale 1 still splits: %v %v", files, err)
	}
	plain := filepath.Join(dir, "plain.yaml")
	if err := os.WriteFile(plain, []byte("name: plain\nbroker: { type: nats, url: \"nats://127.0.0.1:4222\" }\nworkload: { destination: q, duration: 1m }\nmatrix:\n  - { size: 1KB, rate: 10 }\n  - { size: 2KB, rate: 10 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		st   Study
		want string
	}{
		{Study{Dir: dir, Scale: 1}, plain}, // as shipped
		{Study{Dir: dir, Scale: 1, Subs: []string{"nats://127.0.0.1:4222=embedded"}}, filepath.Join(dir, "scenarios", "plain.yaml")},
	} {
		files, err := tc.st.Files(plain)
		if err != nil || len(files) != 1 || files[0] != tc.want {
			t.Errorf("%+v: files %v %v, want %s", tc.st, files, err, tc.want)
		}
	}
	b, _ = os.ReadFile(filepath.Join(dir, "scenarios", "plain.yaml"))
	var doc struct{ Broker struct{ URL string } }
	if err := yaml.Unmarshal(b, &doc); err != nil || doc.Broker.URL != "embedded" {
		t.Errorf("the replacement: %q %v", doc.Broker.URL, err)
	}
}

// Joined parts read as one run: cells renumbered in order, failed and incomplete parts said.
func TestJoin(t *testing.T) {
	dir := t.TempDir()
	var parts []string
	for i, body := range []string{
		`{"scenario":"st-c1","thresholds_ok":true,"complete":true,"cells":[{"id":"c1","sent":5}]}`,
		`{"scenario":"st-c2","thresholds_ok":false,"cells":[{"id":"c1","sent":7}]}`,
	} {
		p := filepath.Join(dir, string(rune('a'+i))+".json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	out, err := Join(filepath.Join(dir, "results", "st"), "st", parts, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if out != filepath.Join(dir, "results", "st", "joined-20260102T030405Z", "summary.json") {
		t.Errorf("path %s", out)
	}
	s, err := figure.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	var raw map[string]any
	_ = json.Unmarshal(b, &raw)
	if s.Scenario != "st" || len(s.Cells) != 2 || s.Cells[1].ID != "c2" || s.Cells[1].Sent != 7 || raw["thresholds_ok"] != false ||
		raw["complete"] != true || len(raw["parts"].([]any)) != 2 {
		t.Errorf("joined %s", b)
	}
}
