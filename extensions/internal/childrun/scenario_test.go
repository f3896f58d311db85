package childrun

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mqbench/xk6-mqbench/internal/driver/all"
)

// What WriteScenario writes reads back through the scenario parser as the Spec said.
func TestWriteScenarioRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name, broker string
		w            Workload
		cell         Cell
		validity     map[string]bool
		wantBroker   string
	}{
		{"plain", `{ type: nats, url: "nats://127.0.0.1:4222", nats: { mode: core } }`,
			Workload{Destination: "q.a", Producers: 1, Consumers: 1, Warmup: 2 * time.Second, Duration: time.Minute, Drain: 2 * time.Second, Pacing: "precise"},
			Cell{Size: "1KB", Rate: 5000, Batch: 2}, map[string]bool{"allow_dropped_iterations": true}, "nats"},
		{"producers only, a VU pool", `{ type: kafka, url: "kafka://127.0.0.1:9092", kafka: { acks: all, linger: 0s } }`,
			Workload{Destination: "q.b", Producers: 3, Consumers: 0, Duration: 90 * time.Second},
			Cell{Size: "256B", Rate: 120000, Batch: 60, VUs: 8}, nil, "kafka"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			broker, err := BrokerNode("--broker", tc.broker)
			if err != nil {
				t.Fatal(err)
			}
			spec := Spec{Name: "gen", Description: "generated", Broker: broker, Workload: tc.w, Matrix: []Cell{tc.cell}, Validity: tc.validity}
			file := filepath.Join(t.TempDir(), "gen.yaml")
			sc, err := WriteScenario(file, "line one\nline two", spec)
			if err != nil {
				b, _ := os.ReadFile(file)
				t.Fatalf("%v\n%s", err, b)
			}
			c := sc.Cells
			if sc.Name != "gen" || sc.Broker.Type != tc.wantBroker || len(c) != 1 || c[0].Rate != tc.cell.Rate ||
				c[0].SizeLabel != tc.cell.Size || c[0].Duration != tc.w.Duration || c[0].Warmup != tc.w.Warmup ||
				c[0].Producers != tc.w.Producers || c[0].Consumers != tc.w.Consumers || sc.Workload.Destination != tc.w.Destination {
				t.Errorf("read back %+v, cells %+v", sc, c)
			}
			b, _ := os.ReadFile(file)
			if !strings.HasPrefix(string(b), "# line one\n# line two\nname: gen\n") {
				t.Errorf("file starts %q", b[:min(len(b), 60)])
			}
		})
	}
}

// A spec the parser refuses is an *InvalidError (the generator's bug), a broker text that is
// not a mapping an error naming what gave it.
func TestWriteScenarioRefuses(t *testing.T) {
	broker, err := BrokerNode("--broker", `{ type: nats, url: "nats://127.0.0.1:4222" }`)
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Name: "other-name", Broker: broker, Workload: Workload{Destination: "q", Producers: 1, Consumers: 1, Duration: time.Second},
		Matrix: []Cell{{Size: "1KB", Rate: 10}}}
	var invalid *InvalidError
	if _, err := WriteScenario(filepath.Join(t.TempDir(), "gen.yaml"), "x", spec); !errors.As(err, &invalid) {
		t.Errorf("a name that is not the file's stem: %v, want an *InvalidError", err)
	}
	for _, text := range []string{"[1, 2]", "type: nats\n- x", ""} {
		if _, err := BrokerNode("--broker", text); err == nil || !strings.HasPrefix(err.Error(), "--broker: ") {
			t.Errorf("BrokerNode(%q) = %v, want an error naming --broker", text, err)
		}
	}
}

// A cell at MaxRate is written as rate: max and reads back as a closed loop with its window
// and its own duration.
func TestWriteScenarioClosedLoop(t *testing.T) {
	broker, err := BrokerNode("--broker", `{ type: nsq, url: "nsq://127.0.0.1:4250", nsq: { publish_batch: 200 } }`)
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Name: "gen", Broker: broker, Workload: Workload{Destination: "q.c", Producers: 1, Consumers: 0, Duration: 10 * time.Second, Drain: 5 * time.Second},
		Matrix: []Cell{{Size: "1KB", Rate: MaxRate, Inflight: 1000, Duration: 3 * time.Second, Messages: 5000}}}
	file := filepath.Join(t.TempDir(), "gen.yaml")
	sc, err := WriteScenario(file, "closed", spec)
	if err != nil {
		b, _ := os.ReadFile(file)
		t.Fatalf("%v\n%s", err, b)
	}
	if c := sc.Cells; len(c) != 1 || !c[0].Max || c[0].Inflight != 1000 || c[0].Duration != 3*time.Second || c[0].Messages != 5000 {
		t.Errorf("read back cells %+v", c)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), "rate: max") {
		t.Errorf("no rate: max in\n%s", b)
	}
}
