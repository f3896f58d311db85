package schemagen

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// What the parser built for each key of defaults, read from a scenario that leaves it out.
var built = map[string]func(s *scenario.Scenario) any{
	"workload.pattern":                  func(s *scenario.Scenario) any { return s.Workload.Pattern },
	"workload.destinations":             func(s *scenario.Scenario) any { return s.Workload.Destinations },
	"workload.subscriptions":            func(s *scenario.Scenario) any { return s.Workload.Subscriptions },
	"workload.producers":                func(s *scenario.Scenario) any { return s.Workload.Producers },
	"workload.consumers":                func(s *scenario.Scenario) any { return s.Workload.Consumers },
	"workload.batch":                    func(s *scenario.Scenario) any { return s.Workload.Batch },
	"workload.warmup":                   func(s *scenario.Scenario) any { return s.Workload.Warmup },
	"workload.drain":                    func(s *scenario.Scenario) any { return s.Workload.Drain },
	"workload.pacing":                   func(s *scenario.Scenario) any { return s.Workload.Pacing },
	"workload.payload.content":          func(s *scenario.Scenario) any { return s.Workload.Payload.Content },
	"workload.payload.key":              func(s *scenario.Scenario) any { return s.Workload.Payload.Key },
	"workload.payload.compressibility":  func(s *scenario.Scenario) any { return s.Workload.Payload.Compressibility },
	"samples":                           func(s *scenario.Scenario) any { return s.Samples },
	"validity.allow_dropped_iterations": func(s *scenario.Scenario) any { return s.Validity.AllowDroppedIterations },
	"distributed.destination": func(s *scenario.Scenario) any {
		return map[bool]string{false: scenario.DestinationPerRunner, true: scenario.DestinationShared}[s.Distributed.Shared]
	},
	"distributed.producers": func(s *scenario.Scenario) any { return s.Distributed.Producers },
	"distributed.consumers": func(s *scenario.Scenario) any { return s.Distributed.Consumers },
	"search.step":           func(s *scenario.Scenario) any { return s.Search.Step },
	"search.confirm":        func(s *scenario.Scenario) any { return s.Search.Confirm },
	"search.precision":      func(s *scenario.Scenario) any { return s.Search.Precision },
	"search.backlog_growth": func(s *scenario.Scenario) any { return s.Search.BacklogGrowth },
	"matrix[].start_rate":   func(s *scenario.Scenario) any { return s.Cells[0].StartRate },
	"matrix[].replay.speed": func(s *scenario.Scenario) any { return s.Cells[0].Replay.Speed },
	"matrix[].replay.loop":  func(s *scenario.Scenario) any { return s.Cells[0].Replay.Loop },
}

// The schema's defaults are the parser's: each key left out of a valid scenario (a search's
// in one with a search, a replay's in one with a replay) builds the default.
func TestDefaultsAreTheParsers(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rec.csv"), []byte("offset_ms,size,key\n0,100,\n1500,100,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := probeBase()
	search := probeBase()
	search["search"] = map[string]any{"max_rate": 1000}
	search["thresholds"] = map[string]any{"mq_e2e_latency": []any{"p(99) < 10ms"}}
	replay := probeBase()
	replay["matrix"] = []any{map[string]any{"replay": map[string]any{"file": "rec.csv"}}}
	docs := map[string]map[string]any{"plain": plain, "search": search, "replay": replay}
	parsed := map[string]*scenario.Scenario{}
	for name, doc := range docs {
		text, err := yaml.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		s, err := scenario.Parse(filepath.Join(dir, "probe.yaml"), text)
		if err != nil {
			t.Fatalf("%s scenario: %v", name, err)
		}
		parsed[name] = s
	}
	for path, want := range defaults {
		t.Run(path, func(t *testing.T) {
			get := built[path]
			if get == nil {
				t.Fatalf("no reader of the built value in built")
			}
			s := parsed["plain"]
			switch path[:min(len(path), 6)] {
			case "search":
				s = parsed["search"]
			case "matrix":
				if path != "matrix[].start_rate" {
					s = parsed["replay"]
				}
			}
			if got, w := normal(get(s)), normal(want); got != w {
				t.Errorf("schema default %v, parser builds %v", want, get(s))
			}
		})
	}
	for path := range built {
		if _, ok := defaults[path]; !ok {
			t.Errorf("%s: read in built, but no default in defaults", path)
		}
	}
}

// normal writes a value as the parser holds it: durations and percentages as numbers.
func normal(v any) string {
	switch v := v.(type) {
	case string:
		if d, err := time.ParseDuration(v); err == nil {
			return fmt.Sprint(d)
		}
		if f, err := percentValue(v); err == nil && v[len(v)-1] == '%' {
			return fmt.Sprint(f)
		}
	case int:
		return fmt.Sprint(float64(v))
	case time.Duration:
		return fmt.Sprint(v)
	}
	return fmt.Sprint(v)
}
