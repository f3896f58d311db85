package runenv

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The results layout: <root>/<scenario>/<stamp>/ for a run (a distributed run's shards in
// <root>/<scenario>/<run id>/runner-<i>-of-<n>/), stamps in UTC so folders sort by time.
const (
	DefaultRoot = "results"
	StampLayout = "20060102T150405Z"
)

// Stamp is a run folder's name for a run started at t.
func Stamp(t time.Time) string { return t.UTC().Format(StampLayout) }

// ParseStamp reads a run folder's name back: a stamp, in either case (a k8s run id holds it
// in lower case), with the -2, -3, … that a second run started in the same second gets.
func ParseStamp(name string) (time.Time, error) {
	stamp, n, suffixed := strings.Cut(name, "-")
	if suffixed {
		if i, err := strconv.Atoi(n); err != nil || i < 2 || strconv.Itoa(i) != n {
			return time.Time{}, fmt.Errorf("run folder %q: the suffix after the timestamp must be a number from 2", name)
		}
	}
	t, err := time.Parse(StampLayout, strings.ToUpper(stamp))
	if err != nil {
		return time.Time{}, fmt.Errorf("run folder %q: not a UTC timestamp like %s", name, StampLayout)
	}
	return t, nil
}

// ScenarioDir holds every run of one scenario.
func ScenarioDir(root, scenario string) string { return filepath.Join(root, scenario) }

// RunDir is the folder of a run of scenario started at t (without the suffix that
// results.NewRunDir adds when one of that second exists).
func RunDir(root, scenario string, t time.Time) string {
	return filepath.Join(root, scenario, Stamp(t))
}

// ShardDir is distributed runner i of n's folder; the merge writes into its parent.
func ShardDir(root, scenario, runID string, i, n int) string {
	return filepath.Join(root, scenario, runID, fmt.Sprintf("runner-%d-of-%d", i, n))
}
