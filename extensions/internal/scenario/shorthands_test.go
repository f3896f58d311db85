package scenario

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// A step ladder and periodic bursts expand to the stages k6 runs: levels named step-<rate>
// with instant jumps between them; bursts named burst, the base rate between them and after
// the last whole period.
func TestShorthandsExpand(t *testing.T) {
	file := filepath.Join(t.TempDir(), "short.yaml")
	src := `name: short
broker: { type: nats, url: embedded }
workload: { destination: s }
matrix:
  - { size: 1KB, steps: { from: 3000, to: 1000, step: 1500, hold: 2s } }
  - { size: 1KB, rate: 100, duration: 11s, burst: { every: 5s, for: 1s, rate: 2.5x } }
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	s := time.Second
	ladder := []Stage{{"step-3000", 3000, 2 * s}, {"", 1500, 0}, {"step-1500", 1500, 2 * s}, {"", 1000, 0}, {"step-1000", 1000, 2 * s}}
	if c := sc.Cells[0]; !reflect.DeepEqual(c.Stages, ladder) || c.StartRate != 3000 || c.Rate != 3000 || c.Duration != 6*s {
		t.Errorf("ladder: start %d, peak %d, %v, stages %+v; want 3000, 3000, 6s, %+v", c.StartRate, c.Rate, c.Duration, c.Stages, ladder)
	}
	bursts := []Stage{{"", 100, 4 * s}, {"", 250, 0}, {"burst", 250, s}, {"", 100, 0}, {"", 100, 4 * s}, {"", 250, 0}, {"burst", 250, s}, {"", 100, 0}, {"", 100, s}}
	if c := sc.Cells[1]; !reflect.DeepEqual(c.Stages, bursts) || c.StartRate != 100 || c.Rate != 250 || c.Duration != 11*s || c.RateLabel() != RateStages {
		t.Errorf("bursts: start %d, peak %d, %v, label %s, stages %+v; want 100, 250, 11s, stages, %+v", c.StartRate, c.Rate, c.Duration, c.RateLabel(), c.Stages, bursts)
	}
}
