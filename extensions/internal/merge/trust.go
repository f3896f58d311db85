package merge

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// Shards may come from strangers (a pull request's artifacts): before anything counts,
// loops or names files by what a shard says, the shard is held to the scenario it carries.

// MaxRunners bounds a distributed run's runner count: checks loop over 1..N, and the
// k6-operator's runs have tens of runners, not thousands.
const MaxRunners = 1024

// plain is a value safe to repeat from a shard in a problem: short, printable, no quote.
var plain = regexp.MustCompile(`^[A-Za-z0-9_.:/+@-]{0,64}$`)

// showValue quotes a shard's value for a problem when it is plain, and names only its length
// otherwise (an edited shard.json must not print what it likes into a CI log).
func showValue(s string) string {
	if plain.MatchString(s) {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("(a value of %d bytes, not shown)", len(s))
}

// scenarioName is the scenario name rule (scenario.Parse checks it on the file; the shard's
// copy names the file the merge parses it as, so it must not carry a path).
var scenarioName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Scenario parses the scenario the first shard carries, as the runners' file was named (so
// the name check passes; a payload file given by a relative path is looked for relative to
// the run's folder). Its error is one line: the scenario's own problems quote its text.
func Scenario(shards []*Shard) (*scenario.Scenario, error) {
	m := shards[0].Manifest
	if !scenarioName.MatchString(m.Scenario) || strings.Contains(m.Scenario, "..") {
		return nil, errors.New("its scenario name is not a scenario name")
	}
	runDir := filepath.Dir(shards[0].Dir)
	sc, err := scenario.Parse(filepath.Join(runDir, m.Scenario+".yaml"), []byte(m.ScenarioYAML))
	if err != nil {
		var e *scenario.Errors
		if errors.As(err, &e) && len(e.Problems) > 0 {
			return nil, fmt.Errorf("%d problem(s), the first at line %d (field %s); validate the scenario file with k6 x mqbench validate",
				len(e.Problems), e.Problems[0].Line, showField(e.Problems[0].Field))
		}
		return nil, errors.New("it does not parse")
	}
	return sc, nil
}

// fieldName is a scenario field path as problems give it ("matrix[1].size").
var fieldName = regexp.MustCompile(`^[A-Za-z0-9_.\[\]]{1,64}$`)

func showField(f string) string {
	if f == "" {
		return "-"
	}
	if fieldName.MatchString(f) {
		return f
	}
	return "?"
}

// checkTrust: a runner count in 1..MaxRunners, a scenario that parses, and cells that are the
// scenario's, once each, in every shard's summary and manifest. Its problems stop the check:
// what follows loops over the runners and puts cell ids into file names.
func checkTrust(shards []*Shard) []string {
	var p []string
	add := func(format string, a ...any) { p = append(p, fmt.Sprintf(format, a...)) }
	for _, s := range shards {
		if n := s.Manifest.Runners; n < 1 || n > MaxRunners {
			add("%s: says the run has %d runners; a run has 1 to %d", s.Name, n, MaxRunners)
		}
		if s.Of < 1 || s.Of > MaxRunners {
			add("%s: its folder name says %d runners; a run has 1 to %d", s.Name, s.Of, MaxRunners)
		}
	}
	if len(p) > 0 {
		return p
	}
	sc, err := Scenario(shards)
	if err != nil {
		return []string{fmt.Sprintf("%s: the scenario in its shard.json does not parse here: %v", shards[0].Name, err)}
	}
	var want []string
	for _, c := range sc.Cells {
		want = append(want, c.ID)
	}
	for _, s := range shards {
		var got []string
		for _, c := range s.Run.Cells {
			got = append(got, c.ID)
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			add("%s: its summary.json's cells are not the cells of the scenario it carries (%s)", s.Name, strings.Join(want, ", "))
		}
		seen := map[string]bool{}
		for i, c := range s.Manifest.Cells {
			if !slices.Contains(want, c.ID) || seen[c.ID] {
				add("%s: its shard.json's cells[%d].id is not a cell of the scenario, or repeats one", s.Name, i)
			}
			seen[c.ID] = true
		}
	}
	return p
}
