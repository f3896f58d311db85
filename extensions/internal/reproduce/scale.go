// Package reproduce runs the shipped study scenarios for `make reproduce` (k6 x mqbench
// reproduce): scaled down for a short smoke run when asked, one cell at a time when a cell
// counts messages, and their figures printed as the Markdown rows docs/reproductions.md
// tabulates.
package reproduce

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
	"gopkg.in/yaml.v3"
)

// Floors of what Scale shortens: each is part of a cell's slot, k6 fixing every cell's start
// in advance, so a long drain or time limit kept would make a smoke run wait.
const (
	floorDuration = 3 * time.Second
	floorWarmup   = time.Second
	floorDrain    = 10 * time.Second
	floorLimit    = 20 * time.Second // a message-counted cell's time limit
	floorMessages = 100
)

// Scale multiplies the scenario's durations, warm-ups, drains, message counts and a search's
// step and confirm by scale, each at least its floor, in whole seconds.
func Scale(root *yaml.Node, scale float64) error {
	w := childrun.Get(root, "workload")
	for _, k := range []struct {
		key   string
		floor time.Duration
	}{{"duration", floorDuration}, {"warmup", floorWarmup}, {"drain", floorDrain}} {
		if err := scaleDuration(w, "workload", k.key, scale, k.floor); err != nil {
			return err
		}
	}
	if m := childrun.Get(root, "matrix"); m != nil {
		for i, c := range m.Content {
			at := fmt.Sprintf("matrix[%d]", i)
			limit := floorDuration
			if n := childrun.Get(c, "messages"); n != nil {
				v, err := strconv.Atoi(n.Value)
				if err != nil {
					return fmt.Errorf("%s.messages: not a whole number: %q", at, n.Value)
				}
				n.Value = strconv.Itoa(max(floorMessages, int(math.RoundToEven(float64(v)*scale))))
				limit = floorLimit
			}
			for _, k := range []struct {
				key   string
				floor time.Duration
			}{{"duration", limit}, {"warmup", floorWarmup}, {"drain", floorDrain}} {
				if err := scaleDuration(c, at, k.key, scale, k.floor); err != nil {
					return err
				}
			}
		}
	}
	s := childrun.Get(root, "search")
	for _, key := range []string{"step", "confirm"} {
		if err := scaleDuration(s, "search", key, scale, floorDuration); err != nil {
			return err
		}
	}
	return nil
}

// scaleDuration scales the duration at key of mapping m (at names it in errors), if any.
func scaleDuration(m *yaml.Node, at, key string, scale float64, floor time.Duration) error {
	n := childrun.Get(m, key)
	if n == nil {
		return nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(n.Value))
	if err != nil {
		return fmt.Errorf("%s.%s: cannot scale %q: %v", at, key, n.Value, err)
	}
	secs := max(floor.Seconds(), math.RoundToEven(d.Seconds()*scale))
	*n = *childrun.Str(strconv.FormatFloat(secs, 'f', -1, 64) + "s")
	return nil
}

// Part is a scenario to run: its name (its file's stem) and its document.
type Part struct {
	Name string
	Doc  *yaml.Node
}

// Split is root itself, or, for a scenario without a search block whose several cells
// include one that counts messages, one scenario per cell named NAME-cI (k6 fixes every
// cell's start in advance, so a counted cell done in seconds would otherwise wait out its
// whole time limit before the next began).
func Split(root *yaml.Node, name string) []Part {
	m := childrun.Get(root, "matrix")
	counted := false
	if m != nil {
		for _, c := range m.Content {
			counted = counted || childrun.Get(c, "messages") != nil
		}
	}
	if childrun.Get(root, "search") != nil || m == nil || len(m.Content) < 2 || !counted {
		return []Part{{name, root}}
	}
	var parts []Part
	for i, c := range m.Content {
		part := childrun.Expand(root, 0) // a copy
		id := fmt.Sprintf("%s-c%d", name, i+1)
		childrun.Set(part, "name", childrun.Str(id))
		childrun.Set(part, "matrix", &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{c}})
		parts = append(parts, Part{id, part})
	}
	return parts
}
