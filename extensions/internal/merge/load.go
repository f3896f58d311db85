// Package merge turns the shards of a distributed run (one results folder per k6 runner, each
// holding shard.json, see results.Shard) into the results of the whole run: Load reads them,
// Check refuses a set that does not make one run, Merge adds them up (histograms exactly), and
// Judge evaluates the scenario's thresholds on the merged data, so a distributed run has one
// verdict rather than one per runner.
package merge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// Shard is one runner's folder read back.
type Shard struct {
	Dir  string // the runner's folder
	Name string // its folder name, runner-<i>-of-<n>: how every problem names it
	// Index and Of are what the folder name says (cross-checked with the manifest).
	Index, Of int
	Manifest  results.Shard
	Run       *results.Run
	// dists are the runner's distributions read from hdr/ (cell → kind), as populated
	// buckets (dist.go).
	dists map[string]map[string]*hdr.PackedHistogram
	// Err says why the shard could not be read; Check reports it.
	Err error
}

// ResolveRun turns what the user named into a distributed run's folder: a folder holding
// runner-<i>-of-<n>/ sub-folders, or a folder of runs (results/<scenario>), whose latest run
// holding shards is taken (run ids sort like the timestamps results.Resolve relies on). A folder
// with neither is returned as it is: Check then reports that it holds no shard.
func ResolveRun(dir string) (string, error) {
	dir = filepath.Clean(dir)
	st, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, unwrapPath(err))
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return "", fmt.Errorf("%s: %w; name the folder itself", dir, results.ErrSymlink)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s: not a folder (give a distributed run's folder, <results>/<scenario>/<run id>)", dir)
	}
	if len(runnerDirs(dir)) > 0 {
		return dir, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, unwrapPath(err))
	}
	var runs []string
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s: %s is %w", dir, results.ShowName(e.Name()), results.ErrSymlink)
		}
		if e.IsDir() && len(runnerDirs(filepath.Join(dir, e.Name()))) > 0 {
			runs = append(runs, e.Name())
		}
	}
	if len(runs) == 0 {
		return dir, nil
	}
	sort.Strings(runs)
	return filepath.Join(dir, runs[len(runs)-1]), nil
}

// unwrapPath drops the path an *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// runnerDirs lists the runner-<i>-of-<n> entries of dir, in index order: folders, and
// symbolic links so named, which Load refuses by name rather than skipping in silence.
func runnerDirs(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if (e.IsDir() || e.Type()&fs.ModeSymlink != 0) && isShardName(e.Name()) {
			out = append(out, e.Name())
		}
	}
	sort.Slice(out, func(i, j int) bool {
		ai, _, _ := runenv.ParseShardName(out[i])
		bi, _, _ := runenv.ParseShardName(out[j])
		return ai < bi || ai == bi && out[i] < out[j]
	})
	return out
}

// Load finds the shards of the run named by dir (see ResolveRun) and reads each: shard.json,
// summary.json and every hdr/<cell>.<kind>.hdr. A shard that cannot be read carries the reason
// in Err rather than failing the load, so Check can name every broken shard at once. The error
// is only for a dir that cannot be read at all (a bad argument).
func Load(dir string) (runDir string, shards []*Shard, err error) {
	runDir, err = ResolveRun(dir)
	if err != nil {
		return "", nil, err
	}
	for _, name := range runnerDirs(runDir) {
		s := &Shard{Dir: filepath.Join(runDir, name), Name: name}
		s.Index, s.Of, _ = runenv.ParseShardName(name)
		s.Err = s.read()
		shards = append(shards, s)
	}
	return runDir, shards, nil
}

func isShardName(name string) bool {
	_, _, ok := runenv.ParseShardName(name)
	return ok
}

func (s *Shard) read() error {
	if fi, err := os.Lstat(s.Dir); err != nil || fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("the runner's folder is %w", results.ErrSymlink)
	}
	b, err := results.ReadInside(s.Dir, results.ShardFile, results.MaxSummaryBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no %s: the runner did not finish writing its shard", results.ShardFile)
	} else if err != nil {
		return fmt.Errorf("%s: %w", results.ShardFile, err)
	}
	if err := json.Unmarshal(b, &s.Manifest); err != nil {
		return fmt.Errorf("%s: %w", results.ShardFile, results.JSONError(err))
	}
	if s.Manifest.Kind != results.ShardKind || s.Manifest.Version < 1 || s.Manifest.Version > 2 {
		// The kind is not repeated: a file that is not a shard says nothing worth printing.
		return fmt.Errorf("%s: not an mqbench shard manifest (want kind %q, version 1 or 2)",
			results.ShardFile, results.ShardKind)
	}
	if _, err := os.Lstat(filepath.Join(s.Dir, "summary.json")); err != nil {
		// results.Load would go looking in sub-folders (hdr/, hgrm/) and say something vaguer.
		return fmt.Errorf("no summary.json: the runner did not write its results")
	}
	if s.Run, err = results.Load(s.Dir); err != nil {
		return err
	}
	s.dists = map[string]map[string]*hdr.PackedHistogram{}
	for i, c := range s.Run.Cells {
		s.dists[c.ID] = map[string]*hdr.PackedHistogram{}
		for _, kind := range results.Kinds {
			rel, ok := c.Hdr[kind]
			if !ok {
				continue // Check compares with the summary's count: no file is fine for no values
			}
			field := fmt.Sprintf("summary.json cells[%d].hdr.%s", i, kind)
			b, err := results.ReadInside(s.Dir, rel, results.MaxHistogramBytes)
			if err != nil {
				return fmt.Errorf("%s: %w", field, err)
			}
			p, err := readDist(bytes.TrimSpace(b))
			if err != nil {
				return fmt.Errorf("%s: not an HdrHistogram V2 encoding: %w", field, err)
			}
			s.dists[c.ID][kind] = p
		}
	}
	return nil
}
