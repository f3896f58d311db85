package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// Hists are a run's recorded distributions: cell id → kind → histogram.
type Hists map[string]map[string]*hist.Hist

// WriteData puts a finished (or stopped) run's data on disk under dir: every non-empty
// distribution as hgrm/<cell>.<kind>.hgrm and hdr/<cell>.<kind>.hdr (their paths recorded in
// s), then summary.json. It returns the distributions as their .hgrm files hold them (cell id
// → kind), for the rendered files (report.Write writes both). Whatever can be written is
// written; the first error is returned.
func WriteData(dir string, s *Summary, hs Hists) (map[string]map[string]hist.Distribution, error) {
	var firstErr error
	keep := func(err error) {
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	keep(os.MkdirAll(dir, 0o755))
	dists := map[string]map[string]hist.Distribution{}
	for i := range s.Cells {
		c := &s.Cells[i]
		if !fileName(c.ID) { // the scenario's rule already; a merged shard's ids are a stranger's
			keep(fmt.Errorf("cells[%d]: its id is not a file name (empty, a path separator or '..'): its histograms are not written", i))
			continue
		}
		for _, kind := range Kinds {
			h := hs[c.ID][kind]
			if h == nil || h.Count() == 0 {
				continue
			}
			name := c.ID + "." + kind
			var b bytes.Buffer
			if err := h.WriteHgrm(&b); err != nil {
				keep(err)
				continue
			}
			if d, err := hist.ParseHgrm(bytes.NewReader(b.Bytes())); err == nil {
				if dists[c.ID] == nil {
					dists[c.ID] = map[string]hist.Distribution{}
				}
				dists[c.ID][kind] = d
			}
			if err := WriteFile(dir, "hgrm/"+name+".hgrm", b.Bytes()); err == nil {
				c.Hgrm = setPath(c.Hgrm, kind, "hgrm/"+name+".hgrm")
			} else {
				keep(err)
			}
			enc, err := h.EncodeV2()
			if err == nil {
				err = WriteFile(dir, "hdr/"+name+".hdr", append(enc, '\n'))
			}
			if err == nil {
				c.Hdr = setPath(c.Hdr, kind, "hdr/"+name+".hdr")
			} else {
				keep(err)
			}
		}
	}
	s.ResultsDir = dir
	withReasons(s)
	j, err := json.MarshalIndent(s, "", "  ")
	keep(err)
	keep(WriteFile(dir, "summary.json", append(j, '\n')))
	return dists, firstErr
}

// fileName reports whether a cell id may name files: no path separator, no "..", no NUL.
func fileName(id string) bool {
	return id != "" && len(id) <= 64 && !strings.ContainsAny(id, "/\\\x00") && !strings.Contains(id, "..")
}

// NewRunDir creates a new run's folder under parent (results/<scenario>), named by start:
// exclusively (os.Mkdir), so two runs started in the same second never share one; the second
// gets a suffix, -2, -3 and so on.
func NewRunDir(parent string, start time.Time) (string, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	base := runenv.Stamp(start)
	for n := 1; n <= 1000; n++ {
		dir := filepath.Join(parent, base)
		if n > 1 {
			dir = fmt.Sprintf("%s-%d", dir, n)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s: 1000 runs started in the second %s", parent, base)
}

func setPath(m map[string]string, kind, rel string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[kind] = rel
	return m
}

// WriteFile writes b to rel (slash-separated) under a run's folder dir, making the folders
// it needs; its error names the file.
func WriteFile(dir, rel string, b []byte) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	return nil
}
