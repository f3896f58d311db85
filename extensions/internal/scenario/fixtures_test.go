package scenario

import (
	"testing"
	"time"
)

// Every shipped scenario must load: they are what `make run` and the docs point users at.
func TestShippedScenariosLoad(t *testing.T) {
	files, err := scenarioFiles()
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios found (err %v)", err)
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%v", err)
		}
	}
}

// The latency matrix is the project's headline benchmark: check the expansion in detail.
func TestNATSLatencyMatrix(t *testing.T) {
	s, err := Load(repoRoot() + "/scenarios/nats-latency-matrix.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id, label        string
		size, rate       int
		producers, batch int
	}{
		{"c1", "256B", 256, 3000, 1, 1},
		{"c2", "1KB", 1024, 3000, 1, 1},
		{"c3", "5KB", 5 * 1024, 2000, 1, 1},
		{"c4", "1KB", 1024, 20000, 25, 10},
		{"c5", "1MB", 1 << 20, 100, 1, 1},
	}
	if len(s.Cells) != len(want) {
		t.Fatalf("got %d cells, want %d", len(s.Cells), len(want))
	}
	for i, w := range want {
		c := s.Cells[i]
		if c.ID != w.id || c.SizeLabel != w.label || c.Size != w.size || c.Rate != w.rate || c.Producers != w.producers || c.Batch != w.batch {
			t.Errorf("cell %d = %+v, want %+v", i, c, w)
		}
		if c.Warmup != 5*time.Second || c.Duration != 30*time.Second || c.Drain != 2*time.Second || c.Consumers != 1 {
			t.Errorf("cell %d timing/consumers = %+v", i, c)
		}
	}
	if s.Broker.Type != "nats" || s.Broker.URL != "nats://127.0.0.1:4222" || s.Broker.Options == nil {
		t.Errorf("broker = %+v", s.Broker)
	}
	if got := s.Thresholds[0].Expressions[1].Expr.K6(); got != "p(99.99)<50" {
		t.Errorf("second e2e expression = %q", got)
	}
}
