package reproduce

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// Study is how a study scenario runs.
type Study struct {
	K6    string   // this binary
	Dir   string   // the work folder: scenarios/, split/, results/, NAME.log
	Scale float64  // 1 runs the scenario as shipped
	Subs  []string // FROM=TO replacements in the scenario's text (a private broker's url)
}

// Files are the scenario files to run for src, in order: src itself when nothing changes it,
// else its scaled copy in Dir/scenarios, or one file per cell in Dir/split (Split).
func (s Study) Files(src string) ([]string, error) {
	name := strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
	b, err := os.ReadFile(src)
	if err != nil {
		return nil, err
	}
	text := string(b)
	for _, sub := range s.Subs {
		from, to, ok := strings.Cut(sub, "=")
		if !ok {
			return nil, fmt.Errorf("--sub %q: give FROM=TO", sub)
		}
		text = strings.ReplaceAll(text, from, to)
	}
	root, err := childrun.ParseDoc([]byte(text), src)
	if err != nil {
		return nil, err
	}
	if s.Scale != 1 {
		if err := Scale(root, s.Scale); err != nil {
			return nil, fmt.Errorf("%s: %v", src, err)
		}
	}
	parts := Split(root, name)
	if len(parts) == 1 && s.Scale == 1 && len(s.Subs) == 0 {
		return []string{src}, nil
	}
	dir, how := filepath.Join(s.Dir, "scenarios"), fmt.Sprintf("scaled by %g", s.Scale)
	if len(parts) > 1 {
		dir = filepath.Join(s.Dir, "split")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for i, p := range parts {
		what := how
		if len(parts) > 1 {
			what += fmt.Sprintf(", cell c%d alone", i+1)
		}
		file := filepath.Join(dir, p.Name+".yaml")
		if _, err := childrun.WriteScenario(file, fmt.Sprintf("%s, %s, for make reproduce", src, what), p.Doc); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		files = append(files, file)
	}
	return files, nil
}

// Run runs files (Files) one after another and returns the path of what they measured: a
// run's summary.json, a search's search.json, or for several parts one summary.json joining
// them (Join). A threshold that failed is a result, not an error: the tables show what was
// measured.
func (s Study) Run(name string, files []string) (string, error) {
	var outs []string
	for _, f := range files {
		out, err := s.runOne(f)
		if err != nil {
			return "", err
		}
		outs = append(outs, out)
	}
	if len(outs) == 1 {
		return outs[0], nil
	}
	return Join(runenv.ScenarioDir(filepath.Join(s.Dir, runenv.DefaultRoot), name), name, outs, time.Now())
}

// runOne runs one scenario file; its k6 output goes to Dir/NAME.log.
func (s Study) runOne(file string) (string, error) {
	name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	out := "summary.json"
	if b, err := os.ReadFile(file); err == nil && strings.Contains("\n"+string(b), "\nsearch:") {
		out = "search.json" // `run` of a scenario with a search block runs the search
	}
	root := filepath.Join(s.Dir, runenv.DefaultRoot)
	if err := os.RemoveAll(runenv.ScenarioDir(root, name)); err != nil {
		return "", err
	}
	log := filepath.Join(s.Dir, name+".log")
	o, err := childrun.Run(childrun.Child{K6: s.K6, File: file, Results: root, Log: log})
	if err != nil {
		return "", err
	}
	found, _ := filepath.Glob(filepath.Join(runenv.ScenarioDir(root, name), "*", out))
	if len(found) == 0 {
		return "", exitcode.New(exitcode.StepFailed, "%s (exit %d) wrote no %s; end of %s:\n%s", name, o.ExitCode, out, log,
			strings.Join(childrun.TailLines(log, 15), "\n"))
	}
	sort.Strings(found) // run folders are UTC timestamps
	return found[len(found)-1], nil
}

// Join writes one summary.json holding every part's cells, in order, with the ids of the
// scenario they came from (c1, c2, …), into dir/joined-<UTC ts>/: the tables read it as if the
// scenario had run whole. Each part's own results stay where its run wrote them.
func Join(dir, name string, parts []string, now time.Time) (string, error) {
	joined := map[string]any{}
	var cells []any
	ok, complete := true, true
	for i, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		var run map[string]any
		if err := json.Unmarshal(b, &run); err != nil {
			return "", fmt.Errorf("%s: %v", p, err)
		}
		if i == 0 {
			joined = run
		}
		ok = ok && run["thresholds_ok"] != false
		complete = complete && run["complete"] != false
		cs, _ := run["cells"].([]any)
		for _, c := range cs {
			if m, isMap := c.(map[string]any); isMap {
				m["id"] = fmt.Sprintf("c%d", i+1)
			}
			cells = append(cells, c)
		}
	}
	joined["scenario"], joined["results_dir"], joined["parts"], joined["cells"] = name, nil, parts, cells
	joined["thresholds_ok"], joined["complete"] = ok, complete
	out := filepath.Join(dir, "joined-"+runenv.Stamp(now))
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	b, err := json.MarshalIndent(joined, "", " ")
	if err != nil {
		return "", err
	}
	return filepath.Join(out, "summary.json"), os.WriteFile(filepath.Join(out, "summary.json"), b, 0o644)
}
