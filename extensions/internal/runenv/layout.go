package runenv

import (
	"fmt"
	"path/filepath"
	"regexp"
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
	return filepath.Join(root, scenario, runID, ShardName(i, n))
}

// ShardName is runner i of n's folder name inside the run's folder.
func ShardName(i, n int) string { return fmt.Sprintf("runner-%d-of-%d", i, n) }

var shardNameRE = regexp.MustCompile(`^runner-([0-9]+)-of-([0-9]+)$`)

// ParseShardName reads a runner's folder name back; ok is false for any other name. The
// numbers are not checked here: the merge names a shard whose numbers do not fit the run.
func ParseShardName(name string) (i, n int, ok bool) {
	g := shardNameRE.FindStringSubmatch(name)
	if g == nil {
		return 0, 0, false
	}
	i, _ = strconv.Atoi(g[1])
	n, _ = strconv.Atoi(g[2])
	return i, n, true
}
