package search

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
	"gopkg.in/yaml.v3"
)

// stepScenario rewrites the scenario text src (read from file) into a one-cell scenario for a
// step: the cell at index with its id as name, its rate fixed, its duration the step's, its
// message count removed; the search block dropped; a payload file replaced by payload, its copy
// in the step's folder (stepPayload: a payload file must lie in its scenario's folder). Aliases
// are expanded first, so dropping the other cells cannot leave an alias without its anchor.
// Everything else (broker, workload, thresholds, validity) is kept as written, so the step is
// judged exactly as the scenario says.
func stepScenario(src []byte, file string, index int, id string, rate int, dur time.Duration, payload string) (*yaml.Node, error) {
	root, err := childrun.ParseDoc(src, file)
	if err != nil {
		return nil, err
	}
	childrun.Del(root, "search")
	matrix := childrun.Get(root, "matrix")
	if matrix == nil || matrix.Kind != yaml.SequenceNode || index >= len(matrix.Content) {
		return nil, fmt.Errorf("%s: no matrix[%d]", file, index)
	}
	cell := matrix.Content[index]
	if cell.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: matrix[%d] is not a mapping", file, index)
	}
	cell.Style = 0 // block style: the rewritten cell reads better
	childrun.Del(cell, "messages")
	childrun.Set(cell, "name", childrun.Str(id))
	childrun.Set(cell, "rate", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(rate)})
	childrun.Set(cell, "duration", childrun.Str(dur.String()))
	matrix.Content = []*yaml.Node{cell}
	if pl := childrun.Get(childrun.Get(root, "workload"), "payload"); pl != nil && payload != "" {
		if f := childrun.Get(pl, "file"); f != nil && f.Kind == yaml.ScalarNode {
			childrun.Set(pl, "file", childrun.Str(payload))
		}
	}
	return root, nil
}

// stepComment heads a step's scenario file.
func stepComment(file string) string {
	return "A step of a capacity search: generated from " + file + " by `k6 x mqbench search`."
}

// stepPayload copies what a step's cell reads of the scenario's payload file (its first size
// bytes, as the payload package reads it) into the step's folder as name.
func stepPayload(src, dir, name string, size int) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.LimitReader(in, int64(max(size, 1)))); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
