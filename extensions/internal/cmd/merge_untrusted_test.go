package cmd

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/merge"
	"github.com/mqbench/xk6-mqbench/internal/merge/mergetest"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// Shards from a stranger: `merge` reads and writes only inside the run's folder, gives up
// quickly on sizes and counts that would exhaust it, and prints none of a shard's content:
// each case is one line per problem and its exit code.
func TestMergeUntrustedShards(t *testing.T) {
	const secret = "MQBENCH_CANARY_TOKEN=hunter2-77e1"
	rng := rand.New(rand.NewPCG(61, 62))
	lat := mergetest.Latencies(rng, 500, 0)
	rewrite := func(t *testing.T, shard string, edit func(*results.Summary)) {
		t.Helper()
		r, err := results.Load(shard)
		if err != nil {
			t.Fatal(err)
		}
		edit(&r.Summary)
		if err := writeJSON(filepath.Join(shard, "summary.json"), r.Summary); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		edit  func(*results.Shard, *results.Summary) // runner 2's manifest and summary
		both  bool                                   // edit runner 1's too
		after func(t *testing.T, runDir, shard2 string)
		want  string
	}{
		{name: "a cell id that climbs out", after: func(t *testing.T, _, shard2 string) {
			rewrite(t, shard2, func(s *results.Summary) { s.Cells[0].ID = "../../../../PWNED" })
			editShard(t, shard2, func(m *results.Shard) { m.Cells[0].ID = "../../../../PWNED" })
		}, want: "runner-2-of-2: its summary.json's cells are not the cells of the scenario it carries (c1)"},
		{name: "every runner's cell id climbs out", after: func(t *testing.T, runDir, _ string) {
			for _, r := range []string{"runner-1-of-2", "runner-2-of-2"} {
				rewrite(t, filepath.Join(runDir, r), func(s *results.Summary) { s.Cells[0].ID = "../../../../PWNED" })
				editShard(t, filepath.Join(runDir, r), func(m *results.Shard) { m.Cells[0].ID = "../../../../PWNED" })
			}
		}, want: "runner-1-of-2: its summary.json's cells are not the cells of the scenario it carries (c1)"},
		{name: "fifty million runners", both: true, edit: func(m *results.Shard, _ *results.Summary) { m.Runners = 50_000_000 },
			want: "runner-2-of-2: says the run has 50000000 runners; a run has 1 to 1024"},
		{name: "hdr path to /dev/zero", after: func(t *testing.T, _, shard2 string) {
			rewrite(t, shard2, func(s *results.Summary) { s.Cells[0].Hdr["e2e"] = "../../../../../../../../dev/zero" })
		}, want: "runner-2-of-2: summary.json cells[0].hdr.e2e: not a relative path inside the run's folder"},
		{name: "hdr symlinked to /dev/zero", after: func(t *testing.T, _, shard2 string) {
			p := filepath.Join(shard2, "hdr", "c1.e2e.hdr")
			os.Remove(p)
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}, want: "runner-2-of-2: summary.json cells[0].hdr.e2e: a symbolic link"},
		{name: "a 2 GB hdr", after: func(t *testing.T, _, shard2 string) {
			if err := os.Truncate(filepath.Join(shard2, "hdr", "c1.e2e.hdr"), 2<<30); err != nil {
				t.Fatal(err)
			}
		}, want: "runner-2-of-2: summary.json cells[0].hdr.e2e: larger than the limit of 64 MiB"},
		{name: "a runner folder that is a symlink", after: func(t *testing.T, _, shard2 string) {
			elsewhere := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.Rename(shard2, elsewhere); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, shard2); err != nil {
				t.Fatal(err)
			}
		}, want: "runner-2-of-2: the runner's folder is a symbolic link"},
		{name: "duplicate runner ids", after: func(t *testing.T, runDir, _ string) {
			if err := os.CopyFS(filepath.Join(runDir, "runner-01-of-2"), os.DirFS(filepath.Join(runDir, "runner-1-of-2"))); err != nil {
				t.Fatal(err)
			}
		}, want: "runner 1 of 2 appears 2 times (runner-01-of-2, runner-1-of-2)"},
		{name: "a secret in shard.json's kind", edit: func(m *results.Shard, _ *results.Summary) { m.Kind = secret },
			want: "runner-2-of-2: shard.json: not an mqbench shard manifest (want kind \"mqbench-shard\""},
		{name: "a secret in a version", edit: func(m *results.Shard, _ *results.Summary) { m.Versions.K6 = secret + " x" },
			want: "runner-2-of-2: k6 version (a value of 35 bytes, not shown) differs from runner-1-of-2's \"v2.1.0\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			top := t.TempDir()
			runDir := filepath.Join(top, "a", "b", "merge-test", "run-1")
			var shard2 string
			runners := []mergetest.Runner{{I: 1, N: 2}, {I: 2, N: 2, Edit: tc.edit}}
			if tc.both {
				runners[0].Edit = tc.edit
			}
			for _, r := range runners {
				r.Cells = []mergetest.Cell{{ID: "c1", E2E: lat}}
				dir, err := mergetest.Write(runDir, r)
				if err != nil {
					t.Fatal(err)
				}
				shard2 = dir
			}
			if tc.after != nil {
				tc.after(t, runDir, shard2)
			}
			before := tree(t, top)
			start := time.Now()
			var out bytes.Buffer
			code, msg := mergeRun(&out, runDir, merge.DefaultMaxSkew)
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("merge took %s", d)
			}
			if code != exitcode.InvalidMerge || !strings.Contains(msg, tc.want) {
				t.Fatalf("exit %d:\n%s\nwant %d with %q", code, msg, exitcode.InvalidMerge, tc.want)
			}
			if strings.Contains(msg+out.String(), "hunter2") {
				t.Errorf("a shard's content printed:\n%s", msg)
			}
			for _, l := range strings.Split(msg, "\n") {
				if !strings.HasPrefix(l, "mqbench merge: invalid distributed run ") {
					t.Errorf("not one line per problem: %q", l)
				}
			}
			if after := tree(t, top); after != before {
				t.Errorf("merge wrote files:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// tree lists every path under root (not following symbolic links).
func tree(t *testing.T, root string) string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		paths = append(paths, strings.TrimPrefix(p, root))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(paths, " ")
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// editShard rewrites a runner's shard.json.
func editShard(t *testing.T, dir string, edit func(*results.Shard)) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, results.ShardFile))
	if err != nil {
		t.Fatal(err)
	}
	var m results.Shard
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(&m)
	if err := writeJSON(filepath.Join(dir, results.ShardFile), m); err != nil {
		t.Fatal(err)
	}
}
