package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// Run is one finished run read back from its results folder.
type Run struct {
	Dir   string // the results folder (…/<scenario>/<timestamp>)
	Label string // how tables and legends name it
	Summary
	Dists map[string]map[string]hist.Distribution // cell id → kind → parsed .hgrm
}

// Resolve turns what the user named into a results folder: a folder holding summary.json, or
// a folder of runs (results/<scenario>), whose latest run (timestamps sort) is taken. The path
// named is the user's own, but its last component must not be a symbolic link (CI often names
// a folder a pull request brought); a run folder found in a listing must not be one either.
func Resolve(dir string) (string, error) {
	dir = filepath.Clean(dir)
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return "", fmt.Errorf("%s: not a results folder: %w", dir, unwrapPath(err))
	case fi.Mode()&fs.ModeSymlink != 0:
		return "", fmt.Errorf("%s: %w; name the folder itself", dir, ErrSymlink)
	case !fi.IsDir():
		return "", fmt.Errorf("%s: not a folder (give a run's folder, results/<scenario>/<timestamp>)", dir)
	}
	if _, err := os.Lstat(filepath.Join(dir, "summary.json")); err == nil {
		return dir, nil // Load refuses it unless it is a regular file
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("%s: not a results folder: %w", dir, unwrapPath(err))
	}
	var runs []string
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s: %s is %w", dir, ShowName(e.Name()), ErrSymlink)
		}
		if _, err := os.Lstat(filepath.Join(dir, e.Name(), "summary.json")); e.IsDir() && err == nil {
			runs = append(runs, e.Name())
		}
	}
	if len(runs) == 0 {
		return "", fmt.Errorf("%s: no summary.json in it or in its sub-folders (give a run's folder, results/<scenario>/<timestamp>, or results/<scenario> for its latest run)", dir)
	}
	sort.Strings(runs)
	return filepath.Join(dir, runs[len(runs)-1]), nil
}

// Load reads a run's summary.json and the .hgrm files it lists. Summaries of schema 1
// (written by the JavaScript handleSummary: a run-wide threshold's cell is null, every
// threshold was evaluated by k6, older ones lack "complete") read as schema 2.
func Load(dir string) (*Run, error) {
	dir, err := Resolve(dir)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "summary.json")
	b, err := ReadInside(dir, "summary.json", MaxSummaryBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	r := &Run{Dir: dir, Dists: map[string]map[string]hist.Distribution{}}
	if err := decode(b, &r.Summary); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for i, c := range r.Cells {
		for _, kind := range Kinds {
			rel, ok := c.Hgrm[kind]
			if !ok {
				continue
			}
			field := fmt.Sprintf("%s cells[%d].hgrm.%s", file, i, kind)
			f, err := OpenInside(dir, rel, MaxHistogramBytes)
			if errors.Is(err, fs.ErrNotExist) {
				continue // the summary's percentiles still serve; the chart just has fewer points
			} else if err != nil {
				return nil, fmt.Errorf("%s: %w", field, err)
			}
			d, err := hist.ParseHgrm(io.LimitReader(f, MaxHistogramBytes+1))
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("%s%s: %w", field, showRel(rel), err)
			}
			if r.Dists[c.ID] == nil {
				r.Dists[c.ID] = map[string]hist.Distribution{}
			}
			r.Dists[c.ID][kind] = d
		}
	}
	r.Label = r.Scenario
	return r, nil
}

// decode reads summary.json into s, bringing older schemas up to this one.
func decode(b []byte, s *Summary) error {
	if err := json.Unmarshal(b, s); err != nil {
		return JSONError(err)
	}
	if s.Scenario == "" || s.Cells == nil {
		return fmt.Errorf("not an mqbench summary (no scenario or cells)")
	}
	if s.Schema > Schema {
		return fmt.Errorf("schema %d, newer than this mqbench reads (%d)", s.Schema, Schema)
	}
	if s.Schema >= 2 {
		return nil
	}
	var old struct {
		Complete *bool `json:"complete"`
	}
	_ = json.Unmarshal(b, &old)
	if old.Complete == nil { // before runs could stop early, a written run had ended
		s.Complete = true
		for _, c := range s.Cells {
			s.Complete = s.Complete && (c.Status == "" || c.Status == "complete")
		}
	}
	k6 := func(ts []Threshold) {
		for i := range ts {
			if ts[i].EvaluatedBy == "" {
				ts[i].EvaluatedBy = "k6"
			}
		}
	}
	k6(s.Thresholds)
	for i := range s.Cells {
		k6(s.Cells[i].Thresholds)
	}
	return nil
}

// LoadAll loads several runs and gives each a distinct label: the scenario name, plus the
// run's folder name when two runs share a scenario.
func LoadAll(dirs []string) ([]*Run, error) {
	var runs []*Run
	count := map[string]int{}
	for _, d := range dirs {
		r, err := Load(d)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
		count[r.Scenario]++
	}
	seen := map[string]bool{}
	for _, r := range runs {
		if count[r.Scenario] > 1 {
			r.Label = r.Scenario + "@" + filepath.Base(r.Dir)
		}
		base := r.Label
		for n := 2; seen[r.Label]; n++ {
			r.Label = fmt.Sprintf("%s#%d", base, n)
		}
		seen[r.Label] = true
	}
	return runs, nil
}
