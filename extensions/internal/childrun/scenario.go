package childrun

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"gopkg.in/yaml.v3"
)

// Spec is a generated one-cell scenario (selfcheck's runs, ladder's rungs): the fields those
// set, in the order a person writes them.
type Spec struct {
	Name        string              `yaml:"name"` // also the file's stem: a scenario is named after its file
	Description string              `yaml:"description,omitempty"`
	Broker      *yaml.Node          `yaml:"broker"` // a mapping (BrokerNode parses one from text)
	Workload    Workload            `yaml:"workload"`
	Matrix      []Cell              `yaml:"matrix"`
	Thresholds  map[string][]string `yaml:"thresholds,omitempty"`
	Validity    map[string]bool     `yaml:"validity,omitempty"`
}

// Workload is a Spec's workload block.
type Workload struct {
	Destination string            `yaml:"destination"`
	Producers   int               `yaml:"producers"`
	Consumers   int               `yaml:"consumers"` // 0 is meaningful: producers only
	Payload     map[string]string `yaml:"payload,omitempty"`
	Warmup      time.Duration     `yaml:"warmup,omitempty"`
	Duration    time.Duration     `yaml:"duration,omitempty"`
	Drain       time.Duration     `yaml:"drain,omitempty"`
	Pacing      string            `yaml:"pacing,omitempty"`
}

// Cell is a Spec's matrix cell.
type Cell struct {
	Size     string        `yaml:"size"`
	Rate     int           `yaml:"rate"`
	Batch    int           `yaml:"batch,omitempty"`
	VUs      int           `yaml:"vus,omitempty"`
	Duration time.Duration `yaml:"duration,omitempty"` // the workload's when 0
	Inflight int           `yaml:"inflight,omitempty"` // rate: max's window per producer
	Messages int           `yaml:"messages,omitempty"` // rate: max ends after this many
}

// MaxRate as a Cell's Rate writes `rate: max`: a closed loop, Inflight messages in flight.
const MaxRate = -1

// MarshalYAML writes the cell, its rate as max when it is MaxRate.
func (c Cell) MarshalYAML() (any, error) {
	type plain Cell // the fields without this method
	if c.Rate != MaxRate {
		return plain(c), nil
	}
	return struct {
		Size     string        `yaml:"size"`
		Rate     string        `yaml:"rate"`
		Duration time.Duration `yaml:"duration,omitempty"`
		Messages int           `yaml:"messages,omitempty"`
		Inflight int           `yaml:"inflight,omitempty"`
	}{c.Size, "max", c.Duration, c.Messages, c.Inflight}, nil
}

// BrokerNode parses a broker block given as YAML text (a flow mapping such as
// `{ type: nats, url: "nats://127.0.0.1:4222" }`); what names it goes into the error.
func BrokerNode(what, text string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, fmt.Errorf("%s: not YAML: %v", what, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: give a mapping such as { type: nats, url: \"nats://127.0.0.1:4222\" }", what)
	}
	return doc.Content[0], nil
}

// InvalidError is a generated scenario that does not encode or validate: a bug in what
// generated it, not in the user's input.
type InvalidError struct{ Err error }

func (e *InvalidError) Error() string { return e.Err.Error() }
func (e *InvalidError) Unwrap() error { return e.Err }

// Encode is doc (a Spec, or a *yaml.Node a caller rewrote) as scenario YAML, each line of
// comment first as a "# " line.
func Encode(comment string, doc any) ([]byte, error) {
	var b bytes.Buffer
	for _, l := range strings.Split(comment, "\n") {
		b.WriteString("# " + l + "\n")
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteScenario is the one writer of a scenario file mqbench generates: doc encoded (Encode),
// written to file and loaded back through the scenario parser, so a child never starts on a
// file it would refuse. Encoding and validation failures are an *InvalidError.
func WriteScenario(file, comment string, doc any) (*scenario.Scenario, error) {
	b, err := Encode(comment, doc)
	if err != nil {
		return nil, &InvalidError{err}
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		return nil, err
	}
	sc, err := scenario.Load(file)
	if err != nil {
		return nil, &InvalidError{err}
	}
	return sc, nil
}
