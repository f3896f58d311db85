package merge

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/mqbench/xk6-mqbench/internal/merge/mergetest"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// Every way a set of shards can fail to make one run is refused, each problem on one line
// naming the shard(s) it concerns.
func TestCheckRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	lat := mergetest.Latencies(rng, 2000, 0.01)
	runner := func(i, n int, edit func(*results.Shard, *results.Summary)) mergetest.Runner {
		return mergetest.Runner{I: i, N: n, Cells: []mergetest.Cell{{ID: "c1", E2E: lat}}, Edit: edit}
	}
	two := func(edit func(*results.Shard, *results.Summary)) []mergetest.Runner {
		return []mergetest.Runner{runner(1, 2, nil), runner(2, 2, edit)}
	}
	for _, tc := range []struct {
		name    string
		runners []mergetest.Runner
		after   func(runDir string) // damage on disk
		want    string              // in one problem line ("" = valid)
	}{
		{"valid", two(nil), nil, ""},
		{"start skew within the limit", two(func(m *results.Shard, s *results.Summary) {
			m.Cells[0].StartedAt = mergetest.Start.Add(4 * time.Second).Format(time.RFC3339Nano)
		}), nil, ""},
		{"no shard", nil, nil, "no shard: no runner-<i>-of-<n>/ folder"},
		{"missing shard", []mergetest.Runner{runner(1, 3, nil), runner(3, 3, nil)}, nil, "runner 2 of 3 is missing: no runner-2-of-3/ shard"},
		{"runner without shard.json", two(nil), func(d string) {
			os.Remove(filepath.Join(d, "runner-2-of-2", results.ShardFile))
		}, "runner-2-of-2: no shard.json: the runner did not finish writing its shard"},
		{"runner without summary.json", two(nil), func(d string) {
			os.Remove(filepath.Join(d, "runner-1-of-2", "summary.json"))
		}, "runner-1-of-2: no summary.json"},
		{"missing hdr file", two(nil), func(d string) {
			os.Remove(filepath.Join(d, "runner-2-of-2", "hdr", "c1.e2e.hdr"))
		}, "runner-2-of-2: summary.json cells[0].hdr.e2e: file does not exist"},
		{"damaged hdr file", two(nil), func(d string) {
			os.WriteFile(filepath.Join(d, "runner-2-of-2", "hdr", "c1.e2e.hdr"), []byte("not base64!"), 0o644)
		}, "runner-2-of-2: summary.json cells[0].hdr.e2e: not an HdrHistogram V2 encoding"},
		{"hdr file of more digits than the runners'", two(nil), func(d string) {
			foreignHdr(t, d, hdr.New(1, 3600e9, 4), 2000, 1e6)
		}, "runner-2-of-2: summary.json cells[0].hdr.e2e: not an HdrHistogram V2 encoding: a histogram of 4 significant digits; at most 3 are read"},
		{"hdr file with values beyond the runners' hour", two(nil), func(d string) {
			foreignHdr(t, d, hdr.New(1, 10*3600e9, 3), 2000, 5*3600e9)
		}, "cell c1 e2e: merging the runners' histograms kept 2000 of 4000 values"},
		{"overlapping segments", two(func(m *results.Shard, _ *results.Summary) { m.Segment = "1/3:1" }), nil,
			"execution segments 0:1/2 (runner-1-of-2) and 1/3:1 (runner-2-of-2) overlap: part of the load ran twice"},
		{"segments short of 1", two(func(m *results.Shard, _ *results.Summary) { m.Segment = "1/2:3/4" }), nil,
			"execution segments end at 3/4 (runner-2-of-2), not 1"},
		{"segments with a gap", two(func(m *results.Shard, _ *results.Summary) { m.Segment = "2/3:1" }), nil,
			"leave 1/2:2/3 to no runner"},
		{"segment that does not parse", two(func(m *results.Shard, _ *results.Summary) { m.Segment = "half" }), nil,
			`runner-2-of-2: execution segment (4 bytes) does not parse as from:to (e.g. 0:1/2)`},
		{"runner counted twice", two(func(m *results.Shard, _ *results.Summary) { m.Runner = 1 }), nil,
			"runner 1 of 2 appears 2 times (runner-1-of-2, runner-2-of-2)"},
		{"runners disagree on N", two(func(m *results.Shard, _ *results.Summary) { m.Runners = 3 }), nil,
			"runner-2-of-2: says the run has 3 runners, runner-1-of-2 says 2"},
		{"different scenario file", []mergetest.Runner{runner(1, 2, nil), {I: 2, N: 2, YAML: mergetest.YAML + "# edited\n",
			Cells: []mergetest.Cell{{ID: "c1", E2E: lat}}}}, nil, "runner-2-of-2: scenario_sha256 (another scenario file)"},
		{"scenario_yaml not matching its hash", two(func(m *results.Shard, _ *results.Summary) { m.ScenarioYAML += " " }), nil,
			"runner-2-of-2: its scenario_yaml does not hash to its scenario_sha256"},
		{"different run id", two(func(m *results.Shard, _ *results.Summary) { m.RunID = "run-2" }), nil,
			`runner-2-of-2: run_id "run-2" differs from runner-1-of-2's "run-1"`},
		{"different mqbench build", two(func(m *results.Shard, _ *results.Summary) { m.Versions.Mqbench = "v0.9.1" }), nil,
			"runner-2-of-2: mqbench version"},
		{"different cells", two(func(_ *results.Shard, s *results.Summary) { s.Cells[0].ID = "c9" }), nil,
			"runner-2-of-2: its summary.json's cells are not the cells of the scenario it carries (c1)"},
		{"incomplete runner", []mergetest.Runner{runner(1, 2, nil), {I: 2, N: 2,
			Cells: []mergetest.Cell{{ID: "c1", E2E: lat, Status: "interrupted"}}}}, nil,
			"runner-2-of-2: did not complete (c1 interrupted): its share of the run is partial"},
		{"start skew", two(func(m *results.Shard, s *results.Summary) {
			m.Cells[0].StartedAt = mergetest.Start.Add(7200 * time.Millisecond).Format(time.RFC3339Nano)
		}), nil, "cell c1: runners started it 7.2s apart (runner-1-of-2 at 05:06:07.000, runner-2-of-2 at 05:06:14.200), more than the 5s allowed (--max-skew)"},
		{"histogram short of the summary's count", two(func(_ *results.Shard, s *results.Summary) { s.Cells[0].E2ELatency.Count++ }), nil,
			"runner-2-of-2: hdr/c1.e2e.hdr holds 2000 values, its summary.json counts 2001"},
		{"values without a histogram", two(func(_ *results.Shard, s *results.Summary) { s.Cells[0].E2EIntendedLatency.Count = 5 }), nil,
			"runner-2-of-2: cell c1 e2e_intended has 5 values but no hdr/ file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "merge-test", "run-1")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, r := range tc.runners {
				if _, err := mergetest.Write(dir, r); err != nil {
					t.Fatal(err)
				}
			}
			if tc.after != nil {
				tc.after(dir)
			}
			_, shards, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			err = Check(shards, DefaultMaxSkew)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused:\n%v", err)
				}
				return
			}
			var inv *Invalid
			if !errors.As(err, &inv) {
				t.Fatalf("got %v, want an *Invalid naming %q", err, tc.want)
			}
			found := false
			for _, p := range inv.Problems {
				found = found || strings.Contains(p, tc.want)
				if strings.Contains(p, "\n") {
					t.Errorf("problem on several lines: %q", p)
				}
			}
			if !found {
				t.Errorf("no problem names %q; got:\n%v", tc.want, err)
			}
		})
	}
}

// DIR may be the scenario's folder: its latest distributed run is taken; a folder that does
// not exist is a bad argument, not an invalid run.
func TestResolveRun(t *testing.T) {
	root := filepath.Join(t.TempDir(), "merge-test")
	for _, run := range []string{"20260101T000000Z", "20260102T000000Z"} {
		if _, err := mergetest.Write(filepath.Join(root, run), mergetest.Runner{I: 1, N: 1}); err != nil {
			t.Fatal(err)
		}
	}
	// A later single run (no shards) is not a distributed run.
	if err := os.MkdirAll(filepath.Join(root, "20260103T000000Z"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{root, filepath.Join(root, "20260102T000000Z")},
		{filepath.Join(root, "20260101T000000Z"), filepath.Join(root, "20260101T000000Z")},
	} {
		if got, err := ResolveRun(tc.in); err != nil || got != tc.want {
			t.Errorf("ResolveRun(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if _, _, err := Load(filepath.Join(root, "nope")); err == nil {
		t.Error("Load of a missing folder: no error")
	}
}

// foreignHdr replaces runner 2's c1 e2e file with h holding n values of v ns: a histogram of
// another geometry than the runners' (another writer, or a damaged shard).
func foreignHdr(t *testing.T, runDir string, h *hdr.Histogram, n, v int64) {
	t.Helper()
	if err := h.RecordValues(v, n); err != nil {
		t.Fatal(err)
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runDir, "runner-2-of-2", "hdr", "c1.e2e.hdr"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
